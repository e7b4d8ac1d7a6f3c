"""Does the backend go idle? Its CPU (utime + stime from /proc/PID/stat, % of one core) in
200 ms steps over the 2 s after a burst of 50 queries over the real socket, and after an import
— against the same backend idle before any query, measured in the same run; also the CPU in the
300 ms after each of 10 spaced answers, and the backend's CPU per query during the burst.

Two scenes, each in a fresh backend:
- ``scan``: a library of ``--chunks`` chunks with deterministic vectors (the paged vector scan
  is the largest matrix product a query runs);
- ``local``: a folder of ``--files`` articles added with the bundled local model (the import),
  then 50 queries embedded by that model.
The threads that used CPU are listed by thread id (from /proc/PID/task).

``--reference`` runs both scenes again with OpenBLAS's own thread timeout
(``OPENBLAS_THREAD_TIMEOUT=28``: its workers spin about 0.1 s after every product, as before
issue 34); only that is switched back, not the batched diagnostics or the signal wake-up.

    .venv/bin/python bench/idle_cpu.py [--chunks 100000] [--files 20] [--reference]

Linux only (/proc). Only the backend's own threads are read, but a busy machine stretches
everything: a request's own work then outlasts the spin after its last product, so the tail
after an answer shows on a quiet machine, while the CPU per query shows the spin in any case.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, Session
from goodbuddy_kb.bridge.waiting import wait_for_library
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, RETRIEVE, SOURCE_ADD
from retrieve import seeded, vocabulary

DATASET = Path(__file__).resolve().parents[1] / "../shared/benchmarks/cmrc2018-trial/corpus"
TICK = os.sysconf("SC_CLK_TCK")
STEP_S = 0.2
STEPS = 10
QUERIES = 50


def cpu_s(pid: int) -> float:
    """utime + stime of the whole process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def threads(pid: int) -> dict[str, float]:
    """CPU seconds per thread ("name/tid": Python does not name its threads for the system)."""
    out: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat.rsplit(")", 1)[1].split()
        out[f"{name}/{task.name}"] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def window(pid: int, label: str) -> float:
    """Sample 2 s in 200 ms steps right now; print CPU % per step; return the average %."""
    before_threads = threads(pid)
    start, steps = cpu_s(pid), []
    last = start
    began = time.perf_counter()
    for i in range(1, STEPS + 1):
        time.sleep(max(0.0, began + i * STEP_S - time.perf_counter()))
        now = cpu_s(pid)
        steps.append((now - last) / STEP_S * 100)
        last = now
    average = (last - start) / (time.perf_counter() - began) * 100
    after = threads(pid)
    busy = sorted(((after[k] - before_threads.get(k, 0.0), k) for k in after), reverse=True)
    who = ", ".join(f"{name} {s * 1000:.0f} ms" for s, name in busy if s > 0) or "none"
    print(f"  {label:<34} avg {average:5.1f} %  steps " + " ".join(f"{s:3.0f}" for s in steps))
    print(f"  {'':<34} threads with CPU: {who}")
    return average


def burst(pid: int, client: BlockingClient, library_id: str, queries: list[str]) -> float:
    """50 queries back to back; prints wall and CPU per query and the threads' split; returns
    the backend's CPU ms per query (OpenBLAS workers that spin between products show here)."""
    during, cpu0, t0 = threads(pid), cpu_s(pid), time.perf_counter()
    for i in range(QUERIES):
        client.call(
            RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=queries[i % len(queries)])
        )
    wall, cpu = (time.perf_counter() - t0) / QUERIES * 1000, (cpu_s(pid) - cpu0) / QUERIES * 1000
    busy = sorted(((v - during.get(k, 0.0), k) for k, v in threads(pid).items()), reverse=True)
    split = ", ".join(f"{k} {v * 1000:.0f}" for v, k in busy if v > 0)
    print(f"  {'50 queries':<34} {wall:.0f} ms each, backend CPU {cpu:.1f} ms each")
    print(f"  {'':<34} CPU ms by thread: {split}")
    return cpu


def spaced(pid: int, client: BlockingClient, library_id: str, queries: list[str]) -> float:
    """CPU % in the 300 ms after each of 10 answers, averaged: how fast a query's tail dies."""
    busy = 0.0
    for q in queries[:10]:
        client.call(RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=q))
        before = cpu_s(pid)
        time.sleep(0.3)
        busy += cpu_s(pid) - before
    average = busy / (0.3 * min(10, len(queries))) * 100
    print(f"  {'300 ms after each of 10 answers':<34} avg {average:5.1f} %")
    return average


def start(data_dir: Path, embedding: str) -> tuple[BackendProcess, BlockingClient]:
    os.environ["GOODBUDDY_DEFAULT_EMBEDDING"] = embedding
    backend = BackendProcess.start(data_dir)
    client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret, "bench").open()
    time.sleep(1.0)  # start-up work (migrations, the watcher) settles first
    return backend, client


def scene_scan(tmp: Path, chunks: int, label: str) -> dict[str, float]:
    rng = random.Random(5)
    data_dir, library_id, _ = seeded(tmp, "", chunks, random.Random(5))
    zh, en = vocabulary(rng)
    queries = ["".join(rng.choice(zh) for _ in range(8)) + "是什么？" for _ in range(10)]
    queries += [" ".join(rng.choice(en) for _ in range(4)) for _ in range(5)]
    backend, client = start(data_dir, "deterministic")
    try:
        print(f"scan: {chunks} chunks, deterministic vectors ({label})")
        idle = window(backend.pid, "idle before any query")
        per_query = burst(backend.pid, client, library_id, queries)
        after = window(backend.pid, "after 50 queries")
        tail = spaced(backend.pid, client, library_id, queries)
        client.close()
    finally:
        backend.stop()
    return {"idle": idle, "queries": after, "query tails": tail, "CPU ms/query": per_query}


def scene_local(tmp: Path, dataset: Path, files: int, label: str) -> dict[str, float]:
    corpus = tmp / "corpus"
    if not corpus.is_dir():
        corpus.mkdir(parents=True)
        for path in sorted(dataset.iterdir())[:files]:
            shutil.copy(path, corpus / path.name)
    data_dir = tmp / f"local-{label}"
    shutil.rmtree(data_dir, ignore_errors=True)
    backend, client = start(data_dir, "local")
    try:
        print(f"local: {files} articles added with the bundled model ({label})")
        idle = window(backend.pid, "idle before any work")
        session = Session(client, backend.endpoint, None)
        library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="idle")).library.id
        t0 = time.perf_counter()
        added = client.call(
            SOURCE_ADD,
            src.SourceAddRequest(library_id=library_id, kind="folder", location=str(corpus)),
        )
        wait_for_library(session, library_id, [added.task_id] if added.task_id else [])
        imported = window(backend.pid, f"after the import ({time.perf_counter() - t0:.0f} s)")
        queries = [p.stem[:12] + " 是什么？" for p in sorted(corpus.iterdir())]
        per_query = burst(backend.pid, client, library_id, queries)
        after = window(backend.pid, "after 50 queries")
        tail = spaced(backend.pid, client, library_id, queries)
        client.close()
    finally:
        backend.stop()
    return {
        "idle": idle,
        "import": imported,
        "queries": after,
        "query tails": tail,
        "CPU ms/query": per_query,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--dataset", type=Path, default=DATASET, help="a folder of articles")
    parser.add_argument("--reference", action="store_true", help="also OpenBLAS's default")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    runs = [("now", None)] + ([("reference: OpenBLAS default", "28")] if args.reference else [])
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, timeout in runs:
            if timeout is None:
                os.environ.pop("OPENBLAS_THREAD_TIMEOUT", None)
            else:
                os.environ["OPENBLAS_THREAD_TIMEOUT"] = timeout
            results[label] = {
                **{f"scan {k}": v for k, v in scene_scan(Path(tmp), args.chunks, label).items()},
                **{
                    f"local {k}": v
                    for k, v in scene_local(Path(tmp), args.dataset, args.files, label).items()
                },
            }
    print("\nbackend CPU, % of one core over each window (target after a burst: < 2 %),")
    print("and CPU ms per query during the burst")
    keys = list(results[runs[0][0]])
    print(f"  {'window':<22}" + "".join(f"{label:>30}" for label, _ in runs))
    for key in keys:
        print(f"  {key:<22}" + "".join(f"{results[label][key]:>30.1f}" for label, _ in runs))
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
