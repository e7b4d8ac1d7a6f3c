"""The evaluation report (no document text, queries, endpoints, model names or credentials),
the quality gates, and running `goodbuddy-kb eval retrieval` (its options: `cli/eval.py`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.contracts.retrieval import ALL_CHANNELS
from goodbuddy_kb.evaluation.dataset import DatasetError, load
from goodbuddy_kb.evaluation.runner import (
    ABLATION_MODES,
    BASELINE,
    DEFAULT_MODES,
    GRAPH_MODE,
    HYBRID_MODE,
    LEXICAL_MODE,
    RRF_MODE,
    VECTOR_MODE,
    DatasetResult,
    Mode,
    evaluate,
)

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "eval"
#: The graph part: questions that need a relation, over the fixtures' corpus plus documents
#: whose relations they follow (its own dataset, so the fixtures' figures stay comparable).
GRAPH_FIXTURES = FIXTURES.parent / "eval-graph"
#: Questions in one language answered only by a document in the other, over a copy of
#: the fixtures' corpus (a mixed library: same-language documents compete for every question).
CROSS_FIXTURES = FIXTURES.parent / "eval-cross"
METRICS = (
    "recall@5",
    "recall@10",
    "mrr@10",
    "ndcg@10",
    "hit@1",
    "hit@5",
    "context_precision",
    "context_recall",
    "no_answer_fp_rate",
    "withheld_rate",
    "relevance_ece",
    "relevance_monotone",
    "latency_p50_ms",
    "latency_p95_ms",
)
SHORT = {
    "recall@5": "R@5",
    "recall@10": "R@10",
    "mrr@10": "MRR@10",
    "ndcg@10": "nDCG@10",
    "hit@1": "Hit@1",
    "hit@5": "Hit@5",
    "context_precision": "CtxP",
    "context_recall": "CtxR",
    "no_answer_fp_rate": "NoAnsFP",
    "withheld_rate": "Withheld",
    "relevance_ece": "ECE",
    "relevance_monotone": "Mono",
    "latency_p50_ms": "p50ms",
    "latency_p95_ms": "p95ms",
}


#: The single-channel modes and the fusions compared with them (``--ablation``).
SINGLE_CHANNEL_MODES = (LEXICAL_MODE, VECTOR_MODE)
BEST_SINGLE = "best single channel"
#: The measures the comparison is made on (each the better of the single channels').
COMPARED = ("recall@5", "recall@10", "mrr@10", "ndcg@10", "hit@1", "hit@5")


def comparison(modes: dict[str, dict[str, float]]) -> dict[str, Any] | None:
    """The best single channel (per measure, the better of lexical only and vector only) and by
    how much hybrid leads (+) or trails (−) it and RRF fusion; None without the ablation modes."""
    if HYBRID_MODE not in modes or not all(m in modes for m in SINGLE_CHANNEL_MODES):
        return None
    best = {m: max(modes[s][m] for s in SINGLE_CHANNEL_MODES) for m in COMPARED}
    hybrid = modes[HYBRID_MODE]
    out: dict[str, Any] = {
        BEST_SINGLE: {m: round(v, 4) for m, v in best.items()},
        "hybridVsBestSingle": {m: round(hybrid[m] - best[m], 4) for m in COMPARED},
    }
    if RRF_MODE in modes:
        out["hybridVsRrf"] = {m: round(hybrid[m] - modes[RRF_MODE][m], 4) for m in COMPARED}
    if GRAPH_MODE in modes:
        # a new library's default: hybrid with its local graph on
        graph = modes[GRAPH_MODE]
        out["graphVsBestSingle"] = {m: round(graph[m] - best[m], 4) for m in COMPARED}
        if RRF_MODE in modes:
            out["graphVsRrf"] = {m: round(graph[m] - modes[RRF_MODE][m], 4) for m in COMPARED}
    return out


def report_dict(results: list[DatasetResult], provider: str) -> dict[str, Any]:
    return {
        "version": 1,
        "provider": provider,
        "datasets": [
            {
                "name": res.name,
                "documents": res.documents,
                "chunks": res.chunks,
                "languages": {
                    lang: {
                        mode: {
                            "queries": s.queries,
                            "unanswerable": s.unanswerable,
                            **{k: round(v, 4) for k, v in s.values.items()},
                        }
                        for mode, s in modes.items()
                    }
                    for lang, modes in res.by_language.items()
                },
                "tags": {
                    tag: {
                        mode: {k: round(v, 4) for k, v in s.values.items()}
                        for mode, s in modes.items()
                    }
                    for tag, modes in res.by_tag.items()
                },
                "comparison": {
                    lang: compared
                    for lang, modes in res.by_language.items()
                    if (compared := comparison({m: s.values for m, s in modes.items()})) is not None
                },
            }
            for res in results
        ],
    }


def check_gates(report: dict[str, Any], gates: dict[str, Any], sampled: bool = False) -> list[str]:
    """The gates' failures. ``sampled``: the run measured a sample of the questions, so a
    language the sample left out is not measured rather than failed ("recall@5 = None")."""
    failures = []
    for dataset in report["datasets"]:
        if dataset["name"] != gates.get("dataset"):
            continue
        mode = gates.get("mode", "hybrid")
        for lang, bounds in gates.get("languages", {}).items():
            if sampled and lang not in dataset["languages"]:
                continue
            values = dataset["languages"].get(lang, {}).get(mode)
            for metric, bound in bounds.items():
                actual = values.get(metric) if values else None
                maximum = metric.endswith("fp_rate")
                if actual is None or (actual > bound if maximum else actual < bound):
                    failures.append(
                        f"{dataset['name']} {lang} {mode} {metric} = {actual} (gate {'≤' if maximum else '≥'} {bound})"
                    )
        ratio_gate = gates.get("paraphraseRecallRatio")
        paraphrase = dataset["tags"].get(gates.get("paraphraseTag", "paraphrase"), {})
        if ratio_gate and mode in paraphrase and BASELINE in paraphrase:
            ours, base = paraphrase[mode]["recall@5"], paraphrase[BASELINE]["recall@5"]
            ratio = ours / base if base else float("inf")
            dataset["paraphraseRecall@5"] = {
                "tag": gates.get("paraphraseTag", "paraphrase"),
                mode: ours,
                BASELINE: base,
                "ratio": round(ratio, 3) if base else None,
            }
            if ratio < ratio_gate:
                failures.append(f"paraphrase Recall@5 ratio {ratio:.2f} < {ratio_gate}")
    return failures + _graph_gate(report, gates.get("graph"))


def _graph_gate(report: dict[str, Any], gate: dict[str, Any] | None) -> list[str]:
    """The graph channel must raise ``metric`` on the graph part (every tagged query of its
    dataset) and must not lower it on the rest (each language of the rest dataset)."""
    by_name = {d["name"]: d for d in report["datasets"]}
    if not gate or gate["dataset"] not in by_name or gate["rest"] not in by_name:
        return []
    metric, mode, base = gate["metric"], gate["mode"], gate["baseline"]
    failures = []
    parts = [(gate["dataset"], "tags", gate["tag"], True)] + [
        (gate["rest"], "languages", lang, False) for lang in by_name[gate["rest"]]["languages"]
    ]
    summary: dict[str, Any] = {"metric": metric, "mode": mode, "baseline": base}
    for name, block, part, must_improve in parts:
        modes = by_name[name][block].get(part, {})
        label = f"{name} [{part}]"
        if mode not in modes or base not in modes:
            failures.append(f"{label}: no {mode} / {base} figures")
            continue
        ours, theirs = modes[mode][metric], modes[base][metric]
        summary[label] = [ours, theirs]
        if (ours <= theirs) if must_improve else (ours < theirs):
            failures.append(
                f"{label} {metric}: {mode} {ours} "
                f"{'does not improve on' if must_improve else 'is below'} {base} {theirs}"
            )
    report["graphGate"] = summary
    return failures


def print_table(report: dict[str, Any]) -> None:
    gate = report.get("graphGate")
    for dataset in report["datasets"]:
        print(
            f"\n{dataset['name']}: {dataset['documents']} documents, {dataset['chunks']} chunks, provider {report['provider']}"
        )
        for section, block in (("", dataset["languages"]), ("tag ", dataset["tags"])):
            for name, modes in block.items():
                print(f"  [{section}{name}]" + "".join(f"{SHORT[m]:>9}" for m in METRICS))
                for mode, values in modes.items():
                    print(
                        f"  {mode:<24}"
                        + "".join(
                            f"{values[m]:>9.3f}" if "latency" not in m else f"{values[m]:>9.1f}"
                            for m in METRICS
                        )
                    )
                compared = dataset.get("comparison", {}).get(name) if not section else None
                if compared is not None:
                    best = compared[BEST_SINGLE]
                    print(
                        f"  {BEST_SINGLE:<24}"
                        + "".join(f"{best[m]:>9.3f}" if m in best else f"{'–':>9}" for m in METRICS)
                    )
                    print("  " + _lead_line(compared))
                    if "graphVsBestSingle" in compared:
                        print("  " + _lead_line(compared, "graph", f"{GRAPH_MODE} (default)"))
        para = dataset.get("paraphraseRecall@5")
        if para is not None:
            mode = next(k for k in para if k not in ("tag", BASELINE, "ratio"))
            ratio = (
                f"{para['ratio']:.2f}×"
                if para["ratio"] is not None
                else "∞ (the baseline found nothing)"
            )
            print(
                f"  Chinese paraphrase Recall@5 [{para['tag']}]: {mode} {para[mode]:.3f}"
                f" vs {BASELINE} {para[BASELINE]:.3f} = {ratio}"
            )
    if gate is not None:
        print(f"\nknowledge graph channel ({gate['metric']}): {gate['mode']} vs {gate['baseline']}")
        for label, (ours, theirs) in ((k, v) for k, v in gate.items() if isinstance(v, list)):
            print(f"  {label}: {ours:.3f} vs {theirs:.3f} ({ours - theirs:+.3f})")


def _lead_line(compared: dict[str, Any], key: str = "hybrid", label: str = "hybrid") -> str:
    """By how much ``label`` (the comparison's ``key``VsBestSingle / ``key``VsRrf) leads or
    trails the best single channel and RRF fusion."""

    def signed(deltas: dict[str, float]) -> str:
        return f"R@5 {deltas['recall@5']:+.3f}, MRR@10 {deltas['mrr@10']:+.3f}"

    line = f"{label} vs {BEST_SINGLE}: {signed(compared[key + 'VsBestSingle'])}"
    if key + "VsRrf" in compared:
        line += f"; vs RRF fusion: {signed(compared[key + 'VsRrf'])}"
    return line + " (+ leads, − trails)"


def safe_report_path(path: Path) -> Path:
    cwd = Path.cwd().resolve()
    target = (cwd / path) if not path.is_absolute() else path
    if target.is_symlink() or any(
        p.is_symlink() for p in target.parents if p != p.parent and str(p).startswith(str(cwd))
    ):
        raise ValueError("the report path must not be a symbolic link")
    resolved = target.resolve()
    if resolved != cwd and cwd not in resolved.parents:
        raise ValueError("the report path must be inside the current directory")
    return resolved


def dataset_folders(roots: list[Path]) -> list[Path]:
    """The fixtures and every folder with a queries.jsonl directly inside each root."""
    found = [FIXTURES, GRAPH_FIXTURES, CROSS_FIXTURES]
    for root in roots:
        if not root.is_dir():
            raise DatasetError(f"{root} is not a folder")
        found += sorted(p for p in root.iterdir() if (p / "queries.jsonl").is_file())
    return found


def run(args: argparse.Namespace) -> int:
    datasets = list(args.dataset)
    if args.provider in ("openai-compatible", "ollama") and not (args.endpoint and args.model):
        print("error: --endpoint and --model are required for that provider", file=sys.stderr)
        return 2
    try:
        report_path = safe_report_path(args.report) if args.report else None
        if args.datasets_in:
            datasets += [d for d in dataset_folders(args.datasets_in) if d not in datasets]
        loaded = [load(d) for d in datasets or [FIXTURES, GRAPH_FIXTURES]]
        if args.sample is not None:
            if args.sample < 1:
                raise ValueError("--sample takes a positive number of queries")
            for d in loaded:
                step = max(1, -(-len(d.queries) // args.sample))
                d.queries = d.queries[::step]
    except (ValueError, DatasetError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    connection = EmbeddingConnection(kind=args.provider, base_url=args.endpoint, model=args.model)
    modes: tuple[Mode, ...] = ABLATION_MODES if args.ablation else DEFAULT_MODES
    if args.channels:
        chosen = [c for c in ALL_CHANNELS if c in {x.strip() for x in args.channels.split(",")}]
        if not chosen:
            print(
                "error: --channels takes a comma list of fts, cjk, vector, graph", file=sys.stderr
            )
            return 2
        modes += (Mode(f"channels {','.join(chosen)}", tuple(chosen), "off"),)
    try:
        results = [
            evaluate(
                d,
                connection,
                os.environ.get("GOODBUDDY_EVAL_API_KEY"),
                modes,
                args.work_dir,
                exclude_in_search=not args.exclude_after_search,
            )
            for d in loaded
        ]
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = report_dict(results, args.provider)
    gates = (
        json.loads(args.gates.read_text(encoding="utf-8"))
        if args.gates and args.gates.is_file()
        else {}
    )
    failures = (
        check_gates(report, gates, bool(getattr(args, "sample", 0)))
        if args.provider == gates.get("provider", "deterministic")
        else []
    )
    report["gateFailures"] = failures
    if report_path is not None:
        report_path.write_text(
            json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    if getattr(args, "json", False):
        print(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        print_table(report)
        for failure in failures:
            print(f"GATE FAILED: {failure}")
    return 1 if failures else 0
