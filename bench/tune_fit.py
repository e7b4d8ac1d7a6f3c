"""The ``fit`` step of ``tune_retrieval.py``: fusion and rerank parameters by coordinate ascent
on the worst per-set gain (the relevance calibration is ``tune_relevance.py``'s). Pure Python +
numpy over the dumps; uses the product's own fusion and rerank functions, so what is measured
here is what ships."""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from goodbuddy_kb.main_process.retrieval import fusion, rerank

TOP = 10


#: Drop each question's ``exclude`` documents (a paraphrase set's question is itself a corpus
#: sentence) from the channels' lists before the fusion, as ``eval retrieval`` searches, instead of
#: only from the ranking judged (``eval retrieval --exclude-after-search``); the scripts'
#: ``--exclude-after-search`` clears it.
EXCLUDE_IN_SEARCH = True


def load_sets(paths: Sequence[Path]) -> dict[str, list[dict[str, Any]]]:
    """(dataset, language) → records."""
    sets: dict[str, list[dict[str, Any]]] = {}
    for path in paths:
        with path.open("rb") as fh:
            data = pickle.load(fh)
        for raw in data["records"]:
            rec = without_excluded(raw) if EXCLUDE_IN_SEARCH else raw
            sets.setdefault(f"{path.parent.name}:{data['name']}/{rec['lang']}", []).append(rec)
    return sets


def without_excluded(rec: dict[str, Any]) -> dict[str, Any]:
    """The question as a library without its ``exclude`` documents ranks it (the others' scores
    and the vector background kept, as one document barely moves them)."""
    return {**rec, **without_documents(rec, rec["exclude"])} if rec["exclude"] else rec


def without_documents(rec: dict[str, Any], docs: set[str]) -> dict[str, list[Any]]:
    """Each channel's hit list with the hits of ``docs`` taken out."""
    cands = rec["candidates"]
    return {
        name: [h for h in rec[name] if cands.get(h[0], {}).get("doc") not in docs]
        for name in ("fts", "cjk", "vector")
    }


def channel_inputs(rec: dict[str, Any], channels: Sequence[str]) -> list[fusion.ChannelRanking]:
    out = []
    mean, std = rec["background"]
    for name in channels:
        if name == "vector":
            if rec["vector"]:
                out.append(
                    fusion.vector_ranking(
                        [cid for cid, _ in rec["vector"]],
                        [s for _, s in rec["vector"]],
                        mean,
                        std,
                        1.0,
                    )
                )
        else:
            hits = rec[name]
            if hits and rec["weights"][name] > 0:
                out.append(
                    fusion.lexical_ranking(
                        name,
                        [h[0] for h in hits],
                        [h[1] for h in hits],
                        hits[0][3],
                        rec["weights"][name],
                    )
                )
    return out


def judge(rec: dict[str, Any], ranked: Sequence[str]) -> tuple[float, float, float]:
    cands = rec["candidates"]
    kept = [cid for cid in ranked if cid in cands and cands[cid]["doc"] not in rec["exclude"]][:TOP]
    hits = [cands[cid]["doc"] if cands[cid]["label"] else None for cid in kept]
    n = rec["relevant"]
    if not n:
        return 0.0, 0.0, 0.0
    recall5 = len({h for h in hits[:5] if h}) / n
    mrr = next((1.0 / i for i, h in enumerate(hits, start=1) if h), 0.0)
    seen: set[str] = set()
    dcg = 0.0
    for i, h in enumerate(hits, start=1):
        if h and h not in seen:
            seen.add(h)
            dcg += 1 / math.log2(i + 1)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(TOP, n) + 1))
    return recall5, mrr, dcg / ideal


def measure(
    records: list[dict[str, Any]], ranker: Callable[[dict[str, Any]], list[str]]
) -> tuple[float, float, float]:
    answerable = [r for r in records if r["relevant"]]
    totals = np.zeros(3)
    for rec in answerable:
        totals += judge(rec, ranker(rec))
    return tuple(totals / max(1, len(answerable)))  # type: ignore[return-value]


def rrf_ranker(channels: Sequence[str]) -> Callable[[dict[str, Any]], list[str]]:
    def rank(rec: dict[str, Any]) -> list[str]:
        rankings = {c: [x[0] for x in rec[c]] for c in channels if rec[c]}
        weights = {c: rec["weights"].get(c, 1.0) for c in channels}
        return [cid for cid, _ in fusion.weighted_rrf(rankings, weights)]

    return rank


def arbitrated_order(
    rec: dict[str, Any], params: fusion.FusionParams, channels: Sequence[str]
) -> tuple[list[fusion.Fused], dict[str, float]]:
    """The pipeline's fused order: adaptive fusion, then ``fusion.arbitrate`` where the vector
    ran beside the full text, the moved pick taking the passed passage's score
    (``ArbitrationStage``). And, where that pick holds less of the question than
    ``params.lexical_low``, its own fused score: the score its relevance reads
    (``stages.evidence``), not the one it took."""
    fused = fusion.adaptive_fusion(
        channel_inputs(rec, channels), params, observable=rec.get("observable")
    ).ranked
    before = [f.chunk_id for f in fused]
    order = arbitrated(rec, before, channels, params)
    if order == before:
        return fused, {}
    by_id = {f.chunk_id: f for f in fused}
    at = next(i for i, (a, b) in enumerate(zip(order, before, strict=True)) if a != b)
    moved = by_id[order[at]]
    feats = rec["candidates"].get(moved.chunk_id, {}).get("features", {})
    held = float(feats.get("weightedCoverage", 0.0))
    own = {moved.chunk_id: moved.score} if held < params.lexical_low else {}
    by_id[moved.chunk_id] = fusion.Fused(moved.chunk_id, fused[at].score, moved.vector_z)
    return [by_id[cid] for cid in order], own


def fused_order(
    rec: dict[str, Any], params: fusion.FusionParams, channels: Sequence[str]
) -> list[fusion.Fused]:
    """The pipeline's fused order (:func:`arbitrated_order`)."""
    return arbitrated_order(rec, params, channels)[0]


def adaptive_ranker(
    params: fusion.FusionParams, channels: Sequence[str]
) -> Callable[[dict[str, Any]], list[str]]:
    def rank(rec: dict[str, Any]) -> list[str]:
        return [f.chunk_id for f in fused_order(rec, params, channels)]

    return rank


def arbitrated(
    rec: dict[str, Any], order: list[str], channels: Sequence[str], params: fusion.FusionParams
) -> list[str]:
    """The fused order after ``fusion.arbitrate``, as the pipeline's ``ArbitrationStage`` runs
    it: only where the vector channel ran beside the full text."""
    if "vector" not in channels or not rec["vector"]:
        return order
    picks = [rec[c][0][0] for c in ("fts", "cjk") if c in channels and rec[c]]

    def coverage(cid: str) -> float:
        feats = rec["candidates"].get(cid, {}).get("features", {})
        return float(feats.get("weightedCoverage", 0.0))

    similarity = dict(rec["vector"])

    def unseen(cid: str) -> bool:
        # as ``ArbitrationStage``'s exempt: written in another script, or a paraphrase
        if params.said_again(similarity.get(cid)):
            return True
        return float(rec["candidates"].get(cid, {}).get("visible", 1.0)) < 1.0

    def same_document(a: str, b: str) -> bool:
        cands = rec["candidates"]
        return bool(cands.get(a, {}).get("doc") == cands.get(b, {}).get("doc"))

    return fusion.arbitrate(
        order,
        picks,
        coverage,
        params.coverage_deficit,
        unseen,
        same_document,
        params.same_document_deficit,
    )


def rerank_ranker(
    params: fusion.FusionParams, weights: dict[str, float]
) -> Callable[[dict[str, Any]], list[str]]:
    def rank(rec: dict[str, Any]) -> list[str]:
        fused = fused_order(rec, params, ("fts", "cjk", "vector"))
        rows = []
        best = fused[0].score if fused else 1.0
        for pos, f in enumerate(fused[:80], start=1):
            feats = dict(rec["candidates"].get(f.chunk_id, {}).get("features", {}))
            feats["fused"] = f.score / best if best > 0 else 0.0
            feats["vector"] = rerank.vector_feature(f.vector_z)
            doc = rec["candidates"].get(f.chunk_id, {}).get("doc", "")
            rows.append((f.chunk_id, doc, pos, feats))
        return [cid for cid, _ in rerank.order(rows, weights)]

    return rank


Figures = dict[str, tuple[float, float, float]]


def baselines(sets: dict[str, list[dict[str, Any]]]) -> dict[str, Figures]:
    """Each set's simple baselines: lexical only, vector only and plain RRF of the channels."""
    base: dict[str, Figures] = {}
    for name, recs in sets.items():
        base[name] = {
            "lexical": measure(recs, adaptive_ranker(fusion.DEFAULT, ("fts", "cjk"))),
            "vector": measure(recs, adaptive_ranker(fusion.DEFAULT, ("vector",))),
            "rrf": measure(recs, rrf_ranker(("fts", "cjk", "vector"))),
        }
    return base


def gap(m: tuple[float, ...], base: Figures) -> float:
    """How far hybrid's R@5 and MRR@10 stand above the better of its baselines (the worse of
    the two measures): the best single channel and RRF (issue 29's condition)."""
    bar_r = max(b[0] for b in base.values())
    bar_m = max(b[1] for b in base.values())
    return min(m[0] - bar_r, m[1] - bar_m)


def search_fusion(
    sets: dict[str, list[dict[str, Any]]],
    base: dict[str, Figures],
    start: fusion.FusionParams,
    rounds: int = 2,
    log: Callable[..., None] = print,
) -> tuple[fusion.FusionParams, dict[str, tuple[float, ...]]]:
    """Coordinate ascent on the worst per-set gap (plus a little of the mean figures)."""

    def objective(params: fusion.FusionParams) -> tuple[float, dict[str, tuple[float, ...]]]:
        worst = math.inf
        total = 0.0
        got = {}
        for name, recs in sets.items():
            m = measure(recs, adaptive_ranker(params, ("fts", "cjk", "vector")))
            got[name] = m
            worst = min(worst, gap(m, base[name]))
            total += m[0] + m[1]
        return worst + 0.01 * total / len(sets), got

    params, _score, got = ascend(objective, start, FUSION_GRID, rounds, log)
    return params, got


#: The values ``search_fusion`` tries for each fusion parameter.
FUSION_GRID: dict[str, list[float]] = {
    "k": [5, 10, 20, 40, 60],
    "score_share": [0.0, 0.25, 0.5, 0.75, 1.0],
    "vector_z_low": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0],
    "vector_z_span": [1.0, 2.0, 3.0, 4.0, 6.0, 8.0],
    "lexical_low": [0.0, 0.2, 0.3, 0.4, 0.5, 0.6],
    "confidence_share": [0.0, 0.25, 0.5, 0.75, 0.9, 1.0],
    "lexical_margin_share": [0.0, 0.25, 0.5, 0.75, 1.0],
    "sharpness": [0.5, 1.0, 2.0, 4.0, 8.0, 16.0],
    "vector_margin_share": [0.0, 0.25, 0.5, 0.75, 1.0],
    "vector_margin_low": [0.0, 0.25, 0.5, 1.0],
    "vector_margin_span": [0.25, 0.5, 1.0, 2.0],
    "coverage_deficit": [0.05, 0.1, 0.15, 0.2, 0.3, 1.01],
    "guessing_gain": [0.0, 0.25, 0.5, 1.0],
}


def ascend(
    objective: Callable[[fusion.FusionParams], tuple[float, Any]],
    start: fusion.FusionParams,
    grid: dict[str, list[float]],
    rounds: int = 2,
    log: Callable[..., None] = print,
) -> tuple[fusion.FusionParams, float, Any]:
    """Coordinate ascent: each parameter in turn takes the grid value that most raises the
    objective, ``rounds`` times over. Returns the parameters, their score and what the objective
    measured for them."""
    params = start
    score, got = objective(params)
    log("start", params, round(score, 4))
    for _round in range(rounds):
        for field, values in grid.items():
            for value in values:
                trial = replace(params, **{field: value})
                s, g = objective(trial)
                if s > score + 1e-9:
                    params, score, got = trial, s, g
            log(field, "→", getattr(params, field), round(score, 4))
    return params, score, got


def show(name: str, m: tuple[float, ...], base: Figures, label: str = "new") -> None:
    print(
        f"  {name:<28} {label} R@5 {m[0]:.4f} MRR {m[1]:.4f} nDCG {m[2]:.4f}"
        f" | lex {base['lexical'][0]:.4f}/{base['lexical'][1]:.4f}"
        f" vec {base['vector'][0]:.4f}/{base['vector'][1]:.4f}"
        f" rrf {base['rrf'][0]:.4f}/{base['rrf'][1]:.4f} | gap {gap(m, base):+.4f}"
    )


def loso(paths: Sequence[Path], bundled: bool = False) -> None:
    """Leave one set out: fit on the others, measure on the one left out — what predicts the
    sets the product is measured on but never sees. Also the shipped constants, for comparison."""
    sets = load_sets(paths)
    base = baselines(sets)
    start = fusion.BUNDLED_MODEL if bundled else fusion.DEFAULT
    for held in sorted(sets):
        rest = {n: r for n, r in sets.items() if n != held}
        params, _ = search_fusion(rest, base, start, rounds=1, log=lambda *_a: None)
        shipped = measure(sets[held], adaptive_ranker(start, ("fts", "cjk", "vector")))
        left_out = measure(sets[held], adaptive_ranker(params, ("fts", "cjk", "vector")))
        show(held, shipped, base[held], "shipped")
        show(held, left_out, base[held], "left out")


def fit(paths: Sequence[Path], bundled: bool = False) -> None:
    sets = load_sets(paths)
    base = baselines(sets)
    for name, figures in base.items():
        print(name, {k: tuple(round(x, 4) for x in v) for k, v in figures.items()})
    params, got = search_fusion(sets, base, fusion.BUNDLED_MODEL if bundled else fusion.DEFAULT)
    print("FUSION", params)
    for name, m in got.items():
        show(name, m, base[name])

    # local rerank: coordinate ascent on the worst per-set gain over the new hybrid
    def rerank_objective(weights: dict[str, float]) -> tuple[float, dict[str, tuple[float, ...]]]:
        worst = math.inf
        total = 0.0
        out = {}
        for name, recs in sets.items():
            m = measure(recs, rerank_ranker(params, weights))
            out[name] = m
            worst = min(worst, m[0] - got[name][0], m[1] - got[name][1])
            total += m[1] - got[name][1]
        return worst + 0.1 * total / len(sets), out

    weights = dict(rerank.weights_for("local" if bundled else None))
    rscore, rgot = rerank_objective(weights)
    print("rerank start", weights, round(rscore, 4))
    steps = [0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5]
    for _round in range(1):
        for feature in list(weights):
            for value in steps:
                trial = {**weights, feature: value}
                s, g = rerank_objective(trial)
                if s > rscore + 1e-9:
                    weights, rscore, rgot = trial, s, g
            print(feature, "→", weights[feature], round(rscore, 4))
    print("RERANK", weights)
    for name, m in rgot.items():
        print(f"  {name:<28} rerank R@5 {m[0]:.4f} MRR {m[1]:.4f} nDCG {m[2]:.4f}")


def fit_paired(paths: Sequence[Path], other: Sequence[Path]) -> None:
    """The bundled model's fusion constants that hold for two encodings of the same sets
    (``paths`` and ``other``: each set dumped from a library the bundled model's int8 and float32
    encoders built).
    Coordinate ascent from the shipped constants on the mean gap over both encodings' baselines
    plus 0.3 of the worst, less a heavy penalty for any set more than 0.002 below the shipped
    constants (with either encoding) and for any set whose figures move by more than 0.005 between
    the encodings (the graph sets, of 10 to 31 questions, excepted: one question moves 0.03)."""
    first, second = load_sets(paths), load_sets(other)
    names = sorted({n.split(":", 1)[1] for n in first} & {n.split(":", 1)[1] for n in second})
    a = {n: next(r for k, r in first.items() if k.endswith(":" + n)) for n in names}
    b = {n: next(r for k, r in second.items() if k.endswith(":" + n)) for n in names}
    base_a, base_b = baselines(a), baselines(b)
    start = fusion.BUNDLED_MODEL
    channels = ("fts", "cjk", "vector")

    def figures(params: fusion.FusionParams) -> dict[str, tuple[tuple[float, ...], ...]]:
        ranker = adaptive_ranker(params, channels)
        return {n: (measure(a[n], ranker), measure(b[n], ranker)) for n in names}

    shipped = figures(start)

    def objective(params: fusion.FusionParams) -> tuple[float, dict[str, Any]]:
        got = figures(params)
        gaps = [min(gap(got[n][0], base_a[n]), gap(got[n][1], base_b[n])) for n in names]
        regress = min(
            got[n][e][i] - shipped[n][e][i] for n in names for e in (0, 1) for i in (0, 1)
        )
        moved = max(
            (abs(got[n][0][i] - got[n][1][i]) for n in names if "graph" not in n for i in (0, 1)),
            default=0.0,
        )
        value = sum(gaps) / len(gaps) + 0.3 * min(gaps)
        value += 10 * min(0.0, regress + 0.002) - 2 * max(0.0, moved - 0.005)
        return value, got

    params, _score, got = ascend(objective, start, PAIRED_GRID)
    print("FUSION", params)
    for n in names:
        show(n + " (1st)", got[n][0], base_a[n])
        show(n + " (2nd)", got[n][1], base_b[n])
        for label, m in zip(("1st", "2nd"), shipped[n], strict=True):
            print(f"  {'':28} shipped {label} R@5 {m[0]:.4f} MRR {m[1]:.4f}")


#: Finer around soft leads (``sharpness`` 1–4) and low vector thresholds than ``FUSION_GRID``.
PAIRED_GRID: dict[str, list[float]] = {
    "sharpness": [1.0, 1.5, 2.0, 3.0, 4.0, 8.0],
    "vector_z_low": [-1.0, -0.5, 0.0, 0.5, 1.0, 2.0],
    "vector_z_span": [2.0, 3.0, 4.0, 6.0, 8.0],
    "vector_margin_span": [0.25, 0.5, 1.0, 2.0],
    "confidence_share": [0.5, 0.75, 0.9, 1.0],
    "k": [3, 5, 10, 20, 60],
    "score_share": [0.25, 0.5, 0.75],
    "lexical_margin_share": [0.5, 0.75, 1.0],
    "lexical_low": [0.0, 0.3, 0.5],
    "vector_margin_share": [0.0, 0.25, 0.5, 0.75, 1.0],
    "vector_margin_low": [0.0, 0.5, 1.0],
}
