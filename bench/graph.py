"""Knowledge-graph costs: local extraction throughput on 10,000 chunks with 5,000 entity names
(against a plain `str.find` scan for the same names as the reference), and graph-channel
latency at 100,000 chunks (against the raw evidence query it is built on).

    .venv/bin/python bench/graph.py [--chunks 10000] [--names 5000] [--channel-chunks 100000]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from _seed import seed_chunks
from goodbuddy_kb.contracts.graph import GraphSettings
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.graph import channel, store
from goodbuddy_kb.main_process.graph.extract import extract_library
from goodbuddy_kb.main_process.graph.matching import Matcher
from goodbuddy_kb.main_process.storage.db import transaction

SUFFIXES = ["部", "中心", "系统", "平台", "制度", "办法"]


def names(rng: random.Random, count: int) -> list[str]:
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 2500)]
    return [
        "".join(rng.choice(chars) for _ in range(rng.choice((2, 3, 4)))) + rng.choice(SUFFIXES)
        for _ in range(count)
    ]


def corpus(rng: random.Random, pool: list[str], chunks: int) -> list[str]:
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 2500)]
    texts = []
    for _ in range(chunks):
        parts = []
        for _ in range(rng.randint(4, 8)):
            filler = "".join(rng.choice(chars) for _ in range(rng.randint(20, 50)))
            a, b = rng.sample(pool, 2)
            parts.append(f"{filler}，{a}由{b}审批。")
        texts.append("".join(parts))
    return texts


def seed(data_dir: Path, texts: list[str]) -> str:
    pool, conn, library_id = seed_chunks(data_dir, texts)
    store.update(conn, library_id, GraphSettings(strategy="local"), None)
    pool.close_all()
    return library_id


def repeat(conn: sqlite3.Connection, library_id: str, total: int) -> None:
    """Copies of the library's chunks (and their evidence) up to ``total`` chunks, in SQL: copy
    ``n`` of a document or chunk replaces the first four characters of its id by "x" and ``n``."""
    base, last = conn.execute(
        "SELECT count(*), max(seq) FROM chunks WHERE library_id = ?", (library_id,)
    ).fetchone()
    copy = 0
    while base * (copy + 1) < total:
        copy += 1
        prefix = f"x{copy:03d}"  # never a hex prefix: no copy can equal an original id
        limit = min(base, total - base * copy)
        with transaction(conn):
            conn.execute("CREATE TEMP TABLE IF NOT EXISTS copied (seq INTEGER PRIMARY KEY)")
            conn.execute("DELETE FROM copied")
            conn.execute(
                "INSERT INTO copied SELECT seq FROM chunks WHERE library_id = ? AND seq <= ?"
                " ORDER BY seq LIMIT ?",
                (library_id, last, limit),
            )
            conn.execute(
                "INSERT INTO documents (id, library_id, source_id, relative_path, title,"
                " parse_status, fulltext_status, graph_status, created_at, updated_at)"
                " SELECT ? || substr(id, 5), library_id, source_id, ? || relative_path, title,"
                " 'done', 'done', 'done', created_at, updated_at FROM documents"
                " WHERE id IN (SELECT document_id FROM chunks WHERE seq IN copied)",
                (prefix, f"copy{copy}/"),
            )
            conn.execute(
                "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text,"
                " checksum, created_at, updated_at) SELECT ? || substr(id, 5), library_id,"
                " ? || substr(document_id, 5), ordinal, content, index_text, checksum,"
                " created_at, updated_at FROM chunks WHERE seq IN copied ORDER BY seq",
                (prefix, prefix),
            )
            conn.execute(
                "INSERT INTO graph_evidence (library_id, chunk_seq, entity_id, relation_id,"
                ' start, "end", confidence, extractor, provenance)'
                ' SELECT v.library_id, n.seq, v.entity_id, v.relation_id, v.start, v."end",'
                " v.confidence, v.extractor, v.provenance FROM graph_evidence v"
                " JOIN chunks c ON c.seq = v.chunk_seq JOIN chunks n ON n.id = ? || substr(c.id, 5)"
                " WHERE v.chunk_seq IN copied",
                (prefix,),
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--names", type=int, default=5_000)
    parser.add_argument("--channel-chunks", type=int, default=100_000)
    args = parser.parse_args()
    print(
        "load average at the start (the machine is shared):"
        f" {', '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    rng = random.Random(7)
    pool_names = names(rng, args.names)
    texts = corpus(rng, pool_names, args.chunks)
    # matching alone: the automaton against a str.find loop over every name
    sample = texts[:500]
    matcher = Matcher((n, n) for n in pool_names)
    t0 = time.perf_counter()
    for text in sample:
        matcher.find(text)
    automaton = time.perf_counter() - t0
    t0 = time.perf_counter()
    for text in sample:
        [n for n in pool_names if n in text]
    naive = time.perf_counter() - t0
    print(
        f"matching 500 chunks × {args.names} names: automaton {automaton * 1000:.1f} ms,"
        f" str.find loop {naive * 1000:.1f} ms ({naive / automaton:.1f}× slower)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        library_id = seed(data, texts)
        db = open_database(data)
        conn = db.get()
        t0, c0 = time.perf_counter(), time.process_time()
        report = extract_library(conn, library_id, CancelToken())
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"local extraction: {args.chunks} chunks in {elapsed:.1f} s ="
            f" {args.chunks / elapsed:,.0f} chunks/s wall clock, {args.chunks / cpu:,.0f} chunks/s"
            f" of CPU time; {report.entities} entities, {report.relations} relations,"
            f" {report.evidence} evidence spans"
        )
        db.close_all()
    # channel latency on a larger library: the corpus repeated. Its evidence is what extraction
    # writes for the first copy, repeated for the others (same text, same spans), so the
    # library is built in seconds rather than a ten-times-longer extraction.
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        library_id = seed(data, texts)
        db = open_database(data)
        conn = db.get()
        extract_library(conn, library_id, CancelToken())
        repeat(conn, library_id, args.channel_chunks)
        queries = [f"{rng.choice(pool_names)}谁审批" for _ in range(60)]
        channel.search(conn, [library_id], queries[0], 24)  # warm the automaton cache
        times, cpu_times, raw = [], [], []
        for q in queries:
            t0, c0 = time.perf_counter(), time.process_time()
            channel.search(conn, [library_id], q, 24)
            times.append((time.perf_counter() - t0) * 1000)
            cpu_times.append((time.process_time() - c0) * 1000)
            entity = store.find_by_name(conn, library_id, q[:-3])
            if entity:
                t0 = time.perf_counter()
                conn.execute(
                    "SELECT chunk_seq FROM graph_evidence WHERE entity_id = ?", (entity[0].id,)
                ).fetchall()
                raw.append((time.perf_counter() - t0) * 1000)
        p50 = statistics.median(times)
        p95 = sorted(times)[int(len(times) * 0.95) - 1]
        raw50 = statistics.median(raw) if raw else float("nan")
        print(
            f"graph channel at {args.channel_chunks:,} chunks: p50 {p50:.1f} ms, p95 {p95:.1f} ms"
            f" (CPU time p50 {statistics.median(cpu_times):.1f} ms);"
            f" raw evidence query p50 {raw50:.2f} ms ({p50 / raw50:.1f}×)"
        )
        print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
        db.close_all()


if __name__ == "__main__":
    main()
