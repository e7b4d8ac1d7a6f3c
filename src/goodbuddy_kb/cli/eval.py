"""`goodbuddy-kb eval retrieval`: its options here; the run, the report and the quality gates are
`evaluation.report` (it works in its own temporary data directory, not the user's)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goodbuddy_kb.evaluation import report
from goodbuddy_kb.evaluation.report import FIXTURES


def add_parser(commands: Any) -> None:
    ev = commands.add_parser("eval", help="evaluate retrieval quality on datasets")
    kinds = ev.add_subparsers(dest="eval_kind", required=True)
    p = kinds.add_parser("retrieval", help="Recall, MRR, nDCG, context precision/recall, latency")
    p.add_argument(
        "--dataset",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="a dataset folder (dataset.json, corpus/, queries.jsonl); repeat for more",
    )
    p.add_argument(
        "--datasets-in",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="every dataset folder inside DIR (e.g. ../shared/benchmarks), plus the fixtures",
    )
    p.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="at most N queries per dataset, evenly spaced (deterministic); the corpus is whole",
    )
    p.add_argument(
        "--work-dir",
        type=Path,
        metavar="DIR",
        help="keep each imported, vectorised library here and reuse it on later runs (imported"
        " again when the dataset's corpus has changed)",
    )
    p.add_argument(
        "--provider",
        choices=["deterministic", "local", "openai-compatible", "ollama"],
        default="deterministic",
        help="the embedding model: deterministic (a test hashing model, the default), local"
        " (the bundled model), or a service at --endpoint with --model",
    )
    p.add_argument("--endpoint", metavar="URL")
    p.add_argument("--model", metavar="NAME")
    p.add_argument(
        "--ablation",
        action="store_true",
        help="lexical only, vector only, hybrid with RRF fusion, hybrid, hybrid over"
        " parent-child chunks (a second library of the corpus), hybrid + graph (the local"
        " knowledge graph), hybrid + local rerank",
    )
    p.add_argument(
        "--channels", metavar="LIST", help="an extra mode over this channel subset, e.g. fts,cjk"
    )
    p.add_argument(
        "--exclude-after-search",
        action="store_true",
        help="keep a question's excluded documents in the library while it is searched and drop"
        " them only from the judged ranking (by default the search leaves them out, as if the"
        " corpus did not hold them)",
    )
    p.add_argument(
        "--report",
        type=Path,
        metavar="PATH",
        help="write the JSON report (inside the current directory)",
    )
    p.add_argument(
        "--gates",
        type=Path,
        default=FIXTURES / "gates.json",
        metavar="FILE",
        help="the least figures a run must reach (exit 1 below them); default: the fixtures'",
    )
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS)


def cmd_eval(args: argparse.Namespace) -> int:
    return report.run(args)
