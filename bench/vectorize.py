"""Vectorisation with the bundled local model: rounds of both encoders (float32 numpy and int8
ONNX Runtime, alternating), each in a fresh process on a fresh copy of the same imported library,
with tokens/s, the achieved GFLOP/s (float32) or GOP/s (int8 weight products) against plain
matrix products of the same shapes and type measured in the same run, and the CPU features
used; then (``--end-to-end``) the current product from adding the folder to "vectors ready"
over the real socket, with the gaps between the task's progress notifications.

    .venv/bin/python bench/vectorize.py [--dataset DIR] [--limit N] [--rounds R] [--end-to-end]

``--limit`` keeps the first N chunks (the others are disabled in the copy) so that a run stays
short on a busy machine; the end-to-end run always takes the whole folder. On a shared machine
the absolute figures move with the load.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, Session
from goodbuddy_kb.bridge.waiting import wait_for_library
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, NOTIFY_TASK, SOURCE_ADD
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings import save_connection

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import encoder_reference as ref

DEFAULT_DATASET = Path(__file__).resolve().parents[1] / "../shared/benchmarks/cmrc2018-trial"
DB = "goodbuddy-kb.sqlite3"


def _backend(data_dir: Path, embedding: str) -> tuple[BackendProcess, Session]:
    os.environ["GOODBUDDY_DEFAULT_EMBEDDING"] = embedding
    backend = BackendProcess.start(data_dir)
    client = BlockingClient(backend.endpoint.server_name, backend.endpoint.secret, "bench").open()
    return backend, Session(client, backend.endpoint, None)


def _add_folder(session: Session, corpus: Path) -> tuple[str, str | None]:
    library_id = session.client.call(
        LIBRARY_CREATE, lib.LibraryCreateRequest(name="bench")
    ).library.id
    added = session.client.call(
        SOURCE_ADD,
        src.SourceAddRequest(library_id=library_id, kind="folder", location=str(corpus)),
    )
    return library_id, added.task_id


def import_template(corpus: Path, into: Path, limit: int | None) -> int:
    """Import the folder with semantic search off; keep the first ``limit`` chunks enabled."""
    backend, session = _backend(into, "none")
    try:
        library_id, task_id = _add_folder(session, corpus)
        wait_for_library(session, library_id, [task_id] if task_id else [])
        session.client.close()
    finally:
        backend.stop()
    pool = open_database(into)
    conn = pool.get()
    if limit is not None:
        with conn:
            conn.execute(
                "UPDATE chunks SET enabled = 0 WHERE seq NOT IN"
                " (SELECT seq FROM chunks WHERE role != 'parent' ORDER BY seq LIMIT ?)",
                (limit,),
            )
    (n,) = conn.execute(
        "SELECT count(*) FROM chunks WHERE enabled = 1 AND role != 'parent'"
    ).fetchone()
    pool.close_all()
    return int(n)


def worker(data_dir: Path, encoder: str) -> None:
    """One measured vectorisation in this process; prints JSON."""
    from goodbuddy_kb.main_process.embeddings.local import LocalE5Provider
    from goodbuddy_kb.main_process.vectors.build import vectorise

    pool = open_database(data_dir)
    conn = pool.get()
    save_connection(conn, EmbeddingConnection(kind="local"))
    (library_id,) = conn.execute("SELECT id FROM libraries").fetchone()
    first: list[float] = []
    # The model loads first (the float32 layers expanded, or the int8 graph built), timed on its
    # own: the rounds then measure embedding throughput alone.
    provider = LocalE5Provider(encoder=encoder)
    assert provider.encoder == encoder, provider.encoder_reason
    loading = time.perf_counter()
    provider.load()
    load_s = time.perf_counter() - loading
    start = time.perf_counter()
    cpu = time.process_time()

    def progress(done: int, _total: int, _failed: int) -> None:
        if done and not first:
            first.append(time.perf_counter() - start)

    report = vectorise(conn, data_dir, library_id, provider, CancelToken(), progress)
    chunks = report.embedded
    provider.close()
    seconds = time.perf_counter() - start
    print(
        json.dumps(
            {
                "chunks": chunks,
                "seconds": seconds,
                "first_s": first[0] if first else None,
                "cpu_s": time.process_time() - cpu,
                "load_s": load_s,
            }
        )
    )
    pool.close_all()


def rss_mb(pid: int) -> float:
    """VmRSS of a process in MiB (Linux; NaN elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return float(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def run_once(template: Path, tmp: Path, encoder: str) -> dict[str, float]:
    copy = tmp / "run"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(template, copy, ignore=shutil.ignore_patterns("backend.*"))
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run(
        [sys.executable, __file__, "--worker", "--data-dir", str(copy), "--encoder", encoder],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def end_to_end(corpus: Path, tmp: Path) -> None:
    """Adding the folder → vectors ready, with the current product over the socket."""
    backend, session = _backend(tmp / "e2e", "local")
    try:
        time.sleep(1.0)
        idle_rss = rss_mb(backend.pid)
        peak_rss = idle_rss
        start = time.perf_counter()
        library_id, _ = _add_folder(session, corpus)
        stamps: list[tuple[float, t.TaskInfo]] = []
        pending: set[str] = set()
        finished = False
        while not finished:
            method, params = session.client.next_notification(timeout=3600)
            if method != NOTIFY_TASK.name:
                continue
            info = t.TaskInfo.model_validate(params)
            if info.kind != "vectorize" or info.library_id != library_id:
                continue
            pending.add(info.id)
            stamps.append((time.perf_counter() - start, info))
            peak_rss = max(peak_rss, rss_mb(backend.pid))
            finished = info.state in t.FINISHED_STATES
        session.client.close()
    finally:
        backend.stop()
    running = [(s, i) for s, i in stamps if i.state == "running"]
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(running)]
    first = next((s for s, i in running if i.total), None)
    first_done = next((s for s, i in running if i.done), None)
    last = stamps[-1][1]
    total_s = stamps[-1][0]
    print(
        f"end to end: {last.done} chunks vectorised, vectors ready {total_s:.1f} s after adding"
        f" the folder ({last.done / total_s:.2f} chunks/s overall; task state {last.state})"
    )
    print(
        f"  task shows its size after {first or float('nan'):.1f} s, first chunks done after"
        f" {first_done or float('nan'):.1f} s; {len(running)} progress notifications, largest gap"
        f" {max(gaps, default=0):.1f} s; final rate {last.rate} chunks/s"
    )
    print(
        f"  backend resident memory: {idle_rss:.0f} MiB idle before adding,"
        f" {peak_rss:.0f} MiB at most during import and vectorisation (sampled per notification)"
    )
    with_rate = [i for _, i in running if i.rate is not None and i.eta_seconds is not None]
    if with_rate:
        mid = with_rate[len(with_rate) // 2]
        print(
            f"  e.g. at {mid.done}/{mid.total}: {mid.rate:.2f} chunks/s, ETA {mid.eta_seconds:.0f} s"
        )


def chunk_texts(template: Path) -> list[str]:
    pool = open_database(template)
    rows = (
        pool.get()
        .execute("SELECT index_text FROM chunks WHERE enabled = 1 AND role != 'parent'")
        .fetchall()
    )
    pool.close_all()
    return [str(r[0]) for r in rows]


def compare_encoders(template: Path, tmp: Path, rounds: int) -> None:
    """Rounds of both encoders, alternating, then the same run's plain-product references."""
    from goodbuddy_kb.main_process.embeddings.e5_int8 import integer_features
    from goodbuddy_kb.main_process.embeddings.local import MAX_LANES, encoder_summary

    work = ref.work_of(chunk_texts(template))
    print(
        f"{work.tokens} tokens in {len(work.windows)} windows (median"
        f" {work.shapes[0][0]} tokens); per run {work.linear_ops / 1e9:.1f} G weight-product"
        f" operations + {work.attention_flops / 1e9:.1f} GFLOP attention"
    )
    print(
        f"{'round':>5} {'encoder':<8}{'load s':>8}{'seconds':>9}{'chunks/s':>10}{'tokens/s':>10}"
        f"{'cpu s':>8}"
    )
    seconds: dict[str, list[float]] = {"float32": [], "int8": []}
    cpu: dict[str, list[float]] = {"float32": [], "int8": []}
    for r in range(rounds):
        for encoder, taken in seconds.items():
            res = run_once(template, tmp, encoder)
            taken.append(res["seconds"])
            cpu[encoder].append(res["cpu_s"])
            print(
                f"{r + 1:>5} {encoder:<8}{res['load_s']:>8.1f}{res['seconds']:>9.1f}{res['chunks'] / res['seconds']:>10.2f}"
                f"{work.tokens / res['seconds']:>10.0f}{res['cpu_s']:>8.1f}",
                flush=True,
            )
    f32, int8 = (statistics.median(seconds[e]) for e in ("float32", "int8"))
    lanes = min(MAX_LANES, os.cpu_count() or 1)
    f_ref = ref.float32_reference(work.shapes, lanes, 2.0)
    i_ref = ref.int8_reference(work.shapes, lanes, 2.0)
    f_got = (work.linear_ops + work.attention_flops) / f32
    i_got = work.linear_ops / int8
    print(
        f"median tokens/s: float32 {work.tokens / f32:.0f}, int8 {work.tokens / int8:.0f}"
        f" -> int8 is {f32 / int8:.2f}x float32 (CPU seconds: float32"
        f" {statistics.median(cpu['float32']):.1f}, int8 {statistics.median(cpu['int8']):.1f},"
        f" {statistics.median(cpu['float32']) / statistics.median(cpu['int8']):.2f}x; the steadier"
        " figure on a busy machine)"
    )
    print(
        f"float32: {f_got / 1e9:.0f} GFLOP/s achieved; a plain numpy float32 matmul of the same"
        f" shapes on {lanes} lanes: {f_ref / 1e9:.0f} GFLOP/s ({f_got / f_ref:.0%})"
    )
    print(
        f"int8: {i_got / 1e9:.0f} GOP/s of int8 weight products achieved (attention stays float32:"
        f" {work.attention_flops / 1e9:.1f} GFLOP more); a plain ONNX Runtime MatMulInteger of the"
        f" same shapes on {lanes} lanes: {i_ref / 1e9:.0f} GOP/s ({i_got / i_ref:.0%})"
    )
    print(f"CPU integer dot-product features: {', '.join(integer_features()) or 'none'}")
    print(f"the product's default here: {encoder_summary()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--limit", type=int, default=None, help="chunks to vectorise per run")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--end-to-end", action="store_true")
    parser.add_argument(
        "--folder",
        type=Path,
        default=None,
        help="only the end-to-end run, on this folder (e.g. 2,000 documents), with memory",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--encoder", default="float32", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.data_dir, args.encoder)
        return
    if args.folder is not None:
        with tempfile.TemporaryDirectory(prefix="goodbuddy-bench-vec-") as name:
            end_to_end(args.folder.resolve(), Path(name))
        return
    corpus = args.dataset.resolve() / "corpus"
    with tempfile.TemporaryDirectory(prefix="goodbuddy-bench-vec-") as name:
        tmp = Path(name)
        template = tmp / "template"
        chunks = import_template(corpus, template, args.limit)
        print(f"{args.dataset.resolve().name}: {chunks} chunks to vectorise per run")
        compare_encoders(template, tmp, args.rounds)
        if args.end_to_end:
            end_to_end(corpus, tmp)


if __name__ == "__main__":
    main()
