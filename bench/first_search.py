"""Semantic search while a library imports: adding a folder to a new library with the bundled
local model, over the real socket, while a question is asked every ``--every`` seconds.

    .venv/bin/python bench/first_search.py [--dataset DIR] [--limit N] [--every S]

Prints the time from adding to full text searchable, to the first vector-channel result (a
result the vector channel ranked, while the first version fills), and to vectors ready (no
vectorisation left and the vector channel covering every document), with the coverage samples
("vectors cover 120/383 documents") along the way. The reference, measured in the same run and
the same backend with the model already loaded and the same questions asked: full text
searchable + a full vectors rebuild of the imported library — the serial flow in which vectors
are built only after the whole sync and searched only after the swap (it does not pay the
model's load, nor the graph extraction that runs beside a first import). ``--limit`` adds only
the first N documents (a copy), for a busy machine. Events are printed as they happen. On a shared machine the absolute
figures move with the load (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    RETRIEVE,
    SOURCE_ADD,
    TASKS_LIST,
    VECTORS_REBUILD,
)

DEFAULT_DATASET = Path(__file__).resolve().parents[1] / "../shared/benchmarks/drcd-dev"


@dataclass
class Timeline:
    full_text_s: float | None = None
    first_vector_s: float | None = None
    ready_s: float | None = None
    #: (seconds after adding, documents covered, documents, chunks covered, chunks)
    samples: list[tuple[float, int, int, int, int]] = field(default_factory=list)
    asked: int = 0
    printed_s: float = -10.0


def _queries(dataset: Path, count: int = 20) -> list[str]:
    lines = (dataset / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["query"] for line in lines[:count]]


def _busy(client: BlockingClient, library_id: str) -> bool:
    tasks = client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id, limit=200)).tasks
    return any(x.state in ("queued", "running") for x in tasks)


def _observe(res: r.KnowledgeRetrievalResponse, busy: bool, seconds: float, line: Timeline) -> None:
    d = res.diagnostics
    if line.full_text_s is None and res.results and "fts" in d.used_channels:
        line.full_text_s = seconds
        print(f"{seconds:7.1f} s  full text searchable", flush=True)
    vector_hit = any("vector" in x.channel_ranks for x in res.results)
    if line.first_vector_s is None and vector_hit:
        line.first_vector_s = seconds
        print(f"{seconds:7.1f} s  first vector-channel result", flush=True)
    for c in d.vector_coverage:
        if seconds - line.printed_s >= 5.0:
            line.printed_s = seconds
            print(
                f"{seconds:7.1f} s  vectors cover {c.documents_covered}/{c.documents_total}"
                f" documents, {c.chunks_covered}/{c.chunks_total} chunks",
                flush=True,
            )
        line.samples.append(
            (seconds, c.documents_covered, c.documents_total, c.chunks_covered, c.chunks_total)
        )
    degraded = [x for x in d.degraded_channels if x.channel == "vector"]
    if vector_hit and not degraded and not d.vector_coverage and not busy:
        line.ready_s = seconds


def follow_import(
    client: BlockingClient, corpus: Path, queries: list[str], every: float
) -> tuple[str, Timeline]:
    """Add the folder and ask until the vectors are ready; prints the timeline."""
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="first")).library.id
    start = time.perf_counter()
    client.call(
        SOURCE_ADD,
        src.SourceAddRequest(library_id=library_id, kind="folder", location=str(corpus)),
    )
    line = Timeline()
    while line.ready_s is None:
        busy = _busy(client, library_id)
        query = queries[line.asked % len(queries)]
        line.asked += 1
        res = client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=query))
        _observe(res, busy, time.perf_counter() - start, line)
        time.sleep(every)
    _print(line)
    return library_id, line


def _print(line: Timeline) -> None:
    def s(x: float | None) -> str:
        return "never" if x is None else f"{x:.1f} s"

    print(f"full text searchable:        {s(line.full_text_s)} after adding")
    print(f"first vector-channel result: {s(line.first_vector_s)} after adding")
    print(f"vectors ready:               {s(line.ready_s)} after adding ({line.asked} questions)")


def reference(client: BlockingClient, library_id: str, queries: list[str], every: float) -> float:
    """A full vectors rebuild of the imported library (model loaded), asked the same questions
    at the same pace as the import was (each one embeds with the model the build uses)."""
    started = time.perf_counter()
    client.call(VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
    asked = 0
    while _busy(client, library_id):
        request = r.RetrieveRequest(library_ids=[library_id], query=queries[asked % len(queries)])
        client.call(RETRIEVE, request)
        asked += 1
        time.sleep(every)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between questions")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    args = parser.parse_args()
    dataset = args.dataset.resolve()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="kb-first-search-") as tmp:
        corpus = dataset / "corpus"
        if args.limit is not None:
            corpus = Path(tmp) / "corpus"
            corpus.mkdir()
            for path in sorted((dataset / "corpus").iterdir())[: args.limit]:
                shutil.copy(path, corpus / path.name)
        os.environ["GOODBUDDY_DEFAULT_EMBEDDING"] = "local"
        backend = BackendProcess.start(Path(tmp) / "data")
        try:
            with BlockingClient(
                backend.endpoint.server_name, backend.endpoint.secret, "bench"
            ).open() as client:
                queries = _queries(dataset)
                library_id, line = follow_import(client, corpus, queries, args.every)
                serial = reference(client, library_id, queries, args.every)
        finally:
            backend.stop()
    ready = line.ready_s or float("nan")
    serial_total = (line.full_text_s or 0.0) + serial
    print(f"reference: a full vectors rebuild of the imported library took {serial:.1f} s")
    print(
        f"vectors ready {ready:.1f} s after adding; the serial flow (full text, then vectors"
        f" built and swapped in): {serial_total:.1f} s, {serial_total / ready:.2f}x as long;"
        f" first vector-channel result {serial_total / (line.first_vector_s or ready):.1f}x"
        " sooner than the serial flow's"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
