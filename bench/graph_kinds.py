"""Where the graph mode's relevance is right and where it is not: every shown result of the
"hybrid + graph" search (rerank off, as in ``eval retrieval --ablation``), sorted by what the
graph made of it, with how many hold the answer against the relevance shown.

Kinds, from the response alone (its ``graph_reasons`` and diagnostics):
- path answer: its first reason is one of the graph's paths (``graphPaths``);
- step: its first reason is the graph's step from the best result (``graphStep``);
- names: it names the question's entities or states one of their relations (where a path
  answered, the step to the answer);
- neighbour: it names only other entities;
- text: the graph gave no reason.
Each kind is split by place (first or lower) and by whether a path answered the question.

    .venv/bin/python bench/graph_kinds.py ../shared/benchmarks/company-graph-dev \\
        fixtures/eval-graph --provider local --work-dir /tmp/ev/work-local

The eval's per-query dumps (``tune_retrieval.py dump``) hold neither paths nor reasons; this
reads them from the product's own responses.
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict
from pathlib import Path

from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.evaluation import dataset as ds
from goodbuddy_kb.evaluation import runner
from goodbuddy_kb.evaluation.metrics import Judged, calibration_error

STEP_MARKS = ("→", "←")


def kind(x: r.RetrievalResult, d: r.Diagnostics) -> str:
    reasons = x.graph_reasons
    if not reasons:
        return "text"
    if reasons[0] in d.graph_paths:
        return "path answer"
    if d.graph_step and reasons[0] == d.graph_step:
        return "step"
    named = set(d.graph_entities)
    if any(any(m in why for m in STEP_MARKS) or why.removeprefix("≈ ") in named for why in reasons):
        return "names"
    return "neighbour"


Table = dict[tuple[str, str, str], list[tuple[float, bool]]]


def recorder(table: Table, judged: list[Judged]) -> runner.Record:
    """Fills ``table`` (kind, place, whether a path answered → (relevance shown, holds it))
    and ``judged`` from each response."""

    def record(query: ds.Query, res: r.KnowledgeRetrievalResponse, j: Judged) -> None:
        judged.append(j)
        if not j.answerable or query.exclude or any(x.same_text for x in res.results):
            return  # its judged list is not one entry per result
        d = res.diagnostics
        answered = "path answered" if d.graph_paths else "no path"
        for place, (x, hit) in enumerate(zip(res.results, j.hits, strict=False)):
            where = "first" if place == 0 else "lower"
            table[(kind(x, d), where, answered)].append((x.relevance, hit is not None))

    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--provider", default="local", choices=("local", "deterministic"))
    parser.add_argument("--work-dir", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    mode = runner.Mode(runner.GRAPH_MODE, None, "off")
    for folder in args.datasets:
        dataset = ds.load(folder)
        table: Table = defaultdict(list)
        judged: list[Judged] = []
        runner.evaluate(
            dataset,
            EmbeddingConnection(kind=args.provider),
            None,
            (mode,),
            args.work_dir,
            recorder(table, judged),
        )
        print(f"{dataset.name} ({args.provider}): ECE {calibration_error(judged):.3f}")
        print(f"  {'kind':<12} {'place':<6} {'question':<14} {'n':>4} {'hold it':>8} {'shown':>6}")
        for (k, where, answered), rows in sorted(table.items()):
            held = sum(1 for _v, y in rows if y) / len(rows)
            shown = sum(v for v, _y in rows) / len(rows)
            print(f"  {k:<12} {where:<6} {answered:<14} {len(rows):>4} {held:>8.2f} {shown:>6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
