"""Fits the calibrated relevance (``retrieval/calibration.py``) on the development sets' dumps
(``tune_retrieval.py dump``) and reports how well it holds: a reliability table by decile and
the expected calibration error per set, monotonicity in rank, and the no-answer trade-off at
each floor (false positives on the sets' no-answer questions and on answerable questions whose
documents are taken out of the ranking, against answerable questions withheld).

    .venv/bin/python bench/tune_relevance.py fit /tmp/dumps-local/*.pickle --family bundled
    .venv/bin/python bench/tune_relevance.py fit /tmp/dumps-det/*.pickle --family other
    .venv/bin/python bench/tune_relevance.py report /tmp/dumps-local/*.pickle --family bundled

The bundled family's relevance reads the first result's closest piece (``retrieval/closeness.py``):
run ``bench/closeness.py`` on the bundled model's dumps first, or the first results read the whole
passage's margin in its place (as a search whose model failed does), which a fit takes for the
piece's and a report measures as a different relevance from the product's.

The relevance of the result at final rank r is the isotonic map of the running minimum of a
logistic score over the features of ranks 1..r, so it never rises down the list; ``fit`` prints
the constants, and with ``--write`` writes them into ``calibration_fit.py`` — unless the refit
makes any set's expected calibration error worse than the shipped constants' by more than
ECE_TOLERANCE (it prints both for every set; ``--force`` writes anyway).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import tune_fit  # type: ignore[import-not-found]
from goodbuddy_kb.main_process.retrieval import calibration, calibration_fit, closeness, fusion
from goodbuddy_kb.main_process.retrieval import calibration_fit as fitted
from tune_fit import arbitrated_order, load_sets, without_documents

TOP = 10
FLOORS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)


def ranked_rows(rec: dict[str, Any], family: str, vector: bool) -> list[dict[str, Any]]:
    """The default pipeline's top results (adaptive fusion, no rerank) with their features."""
    return _rows(rec, family, ("fts", "cjk", "vector") if vector else ("fts", "cjk"), True)


def vector_rows(rec: dict[str, Any], family: str) -> list[dict[str, Any]]:
    """The vector channel's own top results with the text features at zero: the evidence a
    result written in a script the question does not use has (``VECTOR_ONLY``)."""
    return _rows(rec, family, ("vector",), False)


def _rows(
    rec: dict[str, Any], family: str, channels: tuple[str, ...], text: bool
) -> list[dict[str, Any]]:
    """The top results of ``channels`` fused, each with its features (the text's only when
    ``text``), its fused score over the best and its vector margin."""
    kind = "local" if family == "bundled" else "other"
    fused, own = arbitrated_order(rec, fusion.params_for(kind), channels)
    best = fused[0].score if fused else 1.0
    rows = []
    for f in fused:
        cand = rec["candidates"].get(f.chunk_id)
        if cand is None or cand["doc"] in rec["exclude"]:
            continue
        feats = dict(cand["features"]) if text else {}
        feats["fused"] = own.get(f.chunk_id, f.score) / best if best > 0 else 0.0
        margin = None if f.vector_z is None else f.vector_z * rec["background"][1]
        similarity = None if margin is None else margin + rec["background"][0]
        # the closest piece's similarity where ``bench/closeness.py`` read it (the first results)
        closest = cand.get("closest") if len(rows) < closeness.MAX_RESULTS else None
        rows.append(
            {
                "cand": cand,
                "features": feats,
                "margin": margin,
                "similarity": similarity,
                "closestMargin": None if closest is None else closest - rec["background"][0],
                "id": f.chunk_id,
            }
        )
        if len(rows) == TOP:
            break
    for r in rows:
        r["rival"] = rival(rec, r["cand"]["doc"])
    return rows


def rival(rec: dict[str, Any], doc: str) -> float | None:
    """The highest similarity of another document's passage among the vector channel's hits
    (``stages.rivals``: the product reads it off every candidate it loaded)."""
    cands = rec["candidates"]
    others = [float(h[1]) for h in rec["vector"] if h[0] in cands and cands[h[0]]["doc"] != doc]
    return max(others) if others else None


def seen(rec: dict[str, Any], rows: list[dict[str, Any]]) -> list[float]:
    """How far the text features could see each row, as ``RelevanceStage`` passes it: wholly
    for a full-text hit, else the candidate's ``scripts.observable`` share (the dump keeps the
    shares below 1)."""
    lexical = {h[0] for ch in ("fts", "cjk") for h in rec[ch]}
    shares = rec.get("observable") or {}
    return [1.0 if r["id"] in lexical else float(shares.get(r["id"], 1.0)) for r in rows]


def left_out(rec: dict[str, Any]) -> dict[str, Any]:
    """The question as if its documents were not in the library: every document with a relevant
    chunk taken out of each channel's list before the fusion, as a library without them ranks (the
    others' scores are kept — a removed article barely moves their BM25 and the vector
    background). Taken out after the fusion instead, the best remaining result's fused score would
    be measured against the removed one's, which no real search does. The shipped constants were
    fitted before this correction: refitted on these rows, cmrc2018-trial's ECE rises 0.021 →
    0.059 while the graph sets' falls, so they were kept."""
    docs = {c["doc"] for c in rec["candidates"].values() if c["label"]}
    lists = without_documents(rec, docs)
    return {**rec, **lists, "exclude": set(rec["exclude"]) | docs, "relevant": 0, "left_out": True}


def collect(
    sets: dict[str, list[dict[str, Any]]],
    family: str,
    vector: bool,
    leave_out: bool = False,
    alone: bool = False,
) -> dict[str, list[tuple[dict[str, Any], list[dict[str, Any]]]]]:
    """Each set's questions with their ranked rows; ``alone``: the vector channel's alone."""

    def rows(rec: dict[str, Any]) -> list[dict[str, Any]]:
        return vector_rows(rec, family) if alone else ranked_rows(rec, family, vector)

    out = {}
    for name, recs in sets.items():
        items = [(rec, rows(rec)) for rec in recs]
        if leave_out:
            gone = [left_out(rec) for rec in recs if rec["relevant"]]
            items += [(rec, rows(rec)) for rec in gone]
        out[name] = items
    return out


def design(rows: list[dict[str, Any]], vector: bool, family: str) -> np.ndarray:
    """The relevance terms of ``rows`` (``family``: which of them it reads)."""
    return np.asarray(
        [
            calibration.relevance_features(
                r["features"],
                r["margin"] if vector else None,
                rank,
                r["similarity"],
                r["closestMargin"],
                family,
                r["rival"] if vector else None,
            )
            for rank, r in enumerate(rows, start=1)
        ]
    ).reshape(len(rows), -1)


def fit(args: argparse.Namespace) -> None:
    sets = load_sets(args.dumps)
    before = set_eces(sets, args.family)
    for vector, alone in ((True, False), (False, False), (True, True)):
        if alone and args.family != "bundled":
            continue  # the other family's questions keep their language: no blind results
        if (alone and "alone" not in args.models) or (
            not alone and ("vector" if vector else "lexical") not in args.models
        ):
            continue
        data = collect(sets, args.family, vector, leave_out=True, alone=alone)
        xs, ys, ws = [], [], []
        for name, items in data.items():
            for rec, rows in items:
                if not rows:
                    continue
                xs.append(design(rows, vector, args.family))
                ys.append([float(r["cand"]["label"]) for r in rows])
                ws.append([query_weight(rec, items, args.no_answer_share)] * len(rows))
            print(f"{name}: {len(items)} questions", file=sys.stderr)
        x, y, w = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
        w = w / w.mean()
        coef = signed_logistic(x, y, w)
        # isotonic map of the running-minimum score, on the same rows
        scores, labels, weights = [], [], []
        for items in data.values():
            for rec, rows in items:
                if not rows:
                    continue
                s = np.minimum.accumulate(design(rows, vector, args.family) @ coef[1:] + coef[0])
                scores.extend(s)
                labels.extend(float(r["cand"]["label"]) for r in rows)
                weights.extend([query_weight(rec, items, args.no_answer_share)] * len(rows))
        knots = isotonic_knots(np.asarray(scores), np.asarray(labels), np.asarray(weights))
        model = tuple(round(float(c), 4) for c in coef)
        mapped = tuple((round(float(a), 3), round(float(b), 4)) for a, b in knots)
        label = "VECTOR_ONLY" if alone else "WITH_VECTOR" if vector else "LEXICAL_ONLY"
        print(f"{label} = {model}")
        print(f"{label}_MAP = {mapped}")
        if alone:
            fitted.VECTOR_ONLY[args.family] = model
            fitted.VECTOR_ONLY_MAP[args.family] = mapped
        elif vector:
            fitted.WITH_VECTOR[args.family] = model
            fitted.WITH_VECTOR_MAP[args.family] = mapped
        elif args.family == "bundled":  # the lexical-only model is fitted once, with the
            fitted.LEXICAL_ONLY = calibration.LEXICAL_ONLY = model  # bundled model's dumps
            fitted.LEXICAL_ONLY_MAP = calibration.LEXICAL_ONLY_MAP = mapped  # (no vectors)
    after = set_eces(sets, args.family)
    worse = compare_eces(before, after)
    if args.write and worse and not args.force:
        print(
            f"not written: the refit's calibration error is worse on {', '.join(worse)} "
            "(--force writes it anyway)",
            file=sys.stderr,
        )
        raise SystemExit(1)
    if args.write:
        write_constants()


#: How much worse a set's calibration error may get before ``fit --write`` refuses to write.
ECE_TOLERANCE = 0.005


def set_eces(sets: dict[str, list[dict[str, Any]]], family: str) -> dict[str, float]:
    """Each set's expected calibration error with the constants loaded now, as ``report``
    measures it (hybrid rows, then lexical-only rows for the bundled family's dumps)."""
    out: dict[str, float] = {}
    for vector in (True, False) if family == "bundled" else (True,):
        for name, items in collect(sets, family, vector).items():
            preds: list[float] = []
            labels: list[float] = []
            for rec, rows in items:
                preds += shown_relevance(rec, rows, family, vector)
                labels += [float(r["cand"]["label"]) for r in rows]
            out[f"{'hybrid' if vector else 'lexical'} {name}"] = ece(
                np.asarray(preds), np.asarray(labels)
            )
    return out


def shown_relevance(
    rec: dict[str, Any], rows: list[dict[str, Any]], family: str, vector: bool
) -> list[float]:
    """The relevance the product shows for ``rows`` (the question ``rec``'s ranked results),
    with the vector's margins or, for a lexical-only search, without them."""
    return calibration.relevance_list(
        [r["features"] for r in rows],
        [r["margin"] if vector else None for r in rows],
        family,
        seen(rec, rows),
        [r["similarity"] if vector else None for r in rows],
        [r["closestMargin"] if vector else None for r in rows],
        [r["rival"] if vector else None for r in rows],
    )


def compare_eces(before: dict[str, float], after: dict[str, float]) -> list[str]:
    """Prints the shipped and refitted calibration error of every set; returns the sets the
    refit makes worse by more than ECE_TOLERANCE."""
    print(f"{'set':60s} shipped  refit", file=sys.stderr)
    worse = []
    for name, old in before.items():
        new = after[name]
        flag = "  worse" if new > old + ECE_TOLERANCE else ""
        print(f"{name[:60]:60s} {old:.4f}  {new:.4f}{flag}", file=sys.stderr)
        if flag:
            worse.append(name)
    return worse


def write_constants() -> None:
    target = Path(calibration_fit.__file__)
    text = target.read_text(encoding="utf-8")
    head = text[: text.index("WITH_VECTOR: ")]
    body = (
        f"WITH_VECTOR: dict[str, tuple[float, ...]] = {fitted.WITH_VECTOR!r}\n"
        f"WITH_VECTOR_MAP: dict[str, tuple[tuple[float, float], ...]] = {fitted.WITH_VECTOR_MAP!r}\n"
        f"LEXICAL_ONLY: tuple[float, ...] = {fitted.LEXICAL_ONLY!r}\n"
        f"LEXICAL_ONLY_MAP: tuple[tuple[float, float], ...] = {fitted.LEXICAL_ONLY_MAP!r}\n"
        f"VECTOR_ONLY: dict[str, tuple[float, ...]] = {fitted.VECTOR_ONLY!r}\n"
        f"VECTOR_ONLY_MAP: dict[str, tuple[tuple[float, float], ...]] = {fitted.VECTOR_ONLY_MAP!r}\n"
    )
    target.write_text(head + body, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "format", str(target)], check=False)
    print(f"wrote {target}", file=sys.stderr)


def query_weight(rec: dict[str, Any], items: list[Any], share: float) -> float:
    """Every set weighs the same; inside a set, unanswerable questions (its own and the
    left-out ones) make up ``share`` of the weight."""
    none = sum(1 for r, _ in items if not r["relevant"])
    some = len(items) - none
    if not rec["relevant"]:
        return share / max(1, none)
    return (1 - share) / max(1, some)


#: Every feature is evidence for relevance except log rank (the last), which is against it.
SIGNS = (1, 1, 1, 1, 1, 1, 1, -1, 1, 1)


def signed_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A feature whose coefficient comes out with the wrong sign (collinear with another) is
    dropped and the rest refitted: more evidence never lowers the relevance."""
    keep = list(range(x.shape[1]))
    while True:
        coef = weighted_logistic(x[:, keep], y, w)
        wrong = [keep[i] for i, c in enumerate(coef[1:]) if c * SIGNS[keep[i]] < 0]
        if not wrong:
            full = np.zeros(x.shape[1] + 1)
            full[0] = coef[0]
            for i, c in zip(keep, coef[1:], strict=True):
                full[i + 1] = c
            return full
        worst = min(wrong, key=lambda k: coef[1 + keep.index(k)] * SIGNS[k])
        keep.remove(worst)


def weighted_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    design_ = np.hstack([np.ones((len(x), 1)), x])
    coef = np.zeros(design_.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-design_ @ coef))
        grad = design_.T @ (w * (p - y)) + 1e-3 * coef
        hess = design_.T @ (design_ * (w * p * (1 - p))[:, None]) + 1e-3 * np.eye(len(coef))
        step = np.linalg.solve(hess, grad)
        coef -= step
        if np.abs(step).max() < 1e-9:
            break
    return coef


def isotonic_knots(
    s: np.ndarray, y: np.ndarray, w: np.ndarray, blocks: int = 24
) -> list[tuple[float, float]]:
    """Pool-adjacent-violators on scores binned into ``blocks`` weighted quantiles; knots at
    each block's mean score (the product interpolates linearly between them)."""
    order = np.argsort(s, kind="stable")
    s, y, w = s[order], y[order], w[order]
    cum = np.cumsum(w) / w.sum()
    edges = np.searchsorted(cum, np.linspace(0, 1, blocks + 1)[1:-1])
    groups = [g for g in np.split(np.arange(len(s)), edges) if len(g)]
    pooled: list[list[float]] = []  # [weight, weighted score sum, weighted label sum]
    for g in groups:
        pooled.append([float(w[g].sum()), float((w[g] * s[g]).sum()), float((w[g] * y[g]).sum())])
        while len(pooled) > 1 and pooled[-2][2] / pooled[-2][0] >= pooled[-1][2] / pooled[-1][0]:
            last = pooled.pop()
            for i in range(3):
                pooled[-1][i] += last[i]
    return [(b[1] / b[0], b[2] / b[0]) for b in pooled]


def report(args: argparse.Namespace) -> None:
    sets = load_sets(args.dumps)
    for vector in (True, False) if not args.lexical_only else (False,):
        print(f"== {'hybrid' if vector else 'lexical only'} ({args.family})")
        data = collect(sets, args.family, vector)
        for name, items in data.items():
            preds, labels = [], []
            monotone = True
            best_ans, best_none, best_left = [], [], []
            for rec, rows in items:
                rel = shown_relevance(rec, rows, args.family, vector)
                monotone &= all(a >= b for a, b in pairwise(rel))
                preds.extend(rel)
                labels.extend(float(r["cand"]["label"]) for r in rows)
                top = rel[0] if rel else 0.0
                if not rec["relevant"]:
                    best_none.append(top)
                    continue
                best_ans.append(top if any(r["cand"]["label"] for r in rows[:TOP]) else -1.0)
                rest = left_out(rec)
                gone = ranked_rows(rest, args.family, vector)
                again = shown_relevance(rest, gone, args.family, vector)
                best_left.append(again[0] if again else 0.0)
            p, y = np.asarray(preds), np.asarray(labels)
            print(f"{name}: {len(items)} queries, monotone={monotone}, ECE={ece(p, y):.4f}")
            if args.table:
                reliability(p, y)
            trade_off(best_ans, best_none, best_left)


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    if not len(p):
        return 0.0
    idx = np.minimum((p * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            total += m.sum() / len(p) * abs(p[m].mean() - y[m].mean())
    return total


def reliability(p: np.ndarray, y: np.ndarray) -> None:
    idx = np.minimum((p * 10).astype(int), 9)
    for b in range(10):
        m = idx == b
        if m.any():
            print(
                f"    [{b / 10:.1f},{(b + 1) / 10:.1f}) n={m.sum():>6} "
                f"predicted {p[m].mean():.3f} observed {y[m].mean():.3f}"
            )


def trade_off(ans: Sequence[float], none: Sequence[float], left: Sequence[float]) -> None:
    line = "    floor        " + " ".join(f"{f:>6.2f}" for f in FLOORS)
    print(line)
    found = [a for a in ans if a >= 0]
    if found:
        print(
            "    withheld     "
            + " ".join(f"{np.mean([a < f for a in found]):>6.3f}" for f in FLOORS)
            + f"  (of {len(found)} with an answer in the top {TOP})"
        )
    if none:
        print(
            "    no-answer FP "
            + " ".join(f"{np.mean([a >= f for a in none]):>6.3f}" for f in FLOORS)
        )
    if left:
        print(
            "    leave-out FP "
            + " ".join(f"{np.mean([a >= f for a in left]):>6.3f}" for f in FLOORS)
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("fit", "report"):
        p = commands.add_parser(name)
        p.add_argument("dumps", type=Path, nargs="+")
        p.add_argument("--family", choices=("bundled", "other"), required=True)
        p.add_argument("--table", action="store_true")
        p.add_argument("--lexical-only", action="store_true")
        p.add_argument("--no-answer-share", type=float, default=0.3)
        p.add_argument("--write", action="store_true", help="write calibration_fit.py")
        p.add_argument(
            "--force",
            action="store_true",
            help="write even if a set's calibration error gets worse than the shipped one's",
        )
        p.add_argument(
            "--exclude-after-search",
            action="store_true",
            help="keep each question's exclude documents in the channels' lists and drop them only"
            " from the ranking judged (by default they leave before the fusion; the closest pieces"
            " were read in the order with them: a first result that moves reads its whole margin)",
        )
        p.add_argument(
            "--models",
            default="vector,lexical,alone",
            help="which to fit: vector (WITH_VECTOR), lexical (LEXICAL_ONLY), alone (VECTOR_ONLY)",
        )
    args = parser.parse_args()
    tune_fit.EXCLUDE_IN_SEARCH = not args.exclude_after_search
    fit(args) if args.command == "fit" else report(args)


if __name__ == "__main__":
    main()
