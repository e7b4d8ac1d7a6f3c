"""Knowledge-graph costs: local extraction throughput on 10,000 chunks with 5,000 entity names
(against a plain `str.find` scan for the same names as the reference), and graph-channel
latency at 100,000 chunks (against the raw evidence query it is built on).

    .venv/bin/python bench/graph.py [--chunks 10000] [--names 5000] [--channel-chunks 100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from goodbuddy_kb.contracts.graph import GraphSettings
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.graph import channel, store
from goodbuddy_kb.main_process.graph.extract import extract_library
from goodbuddy_kb.main_process.graph.matching import Matcher
from goodbuddy_kb.main_process.storage import libraries
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
    pool = open_database(data_dir)
    conn = pool.get()
    library_id = libraries.create(conn, "Bench").id
    t = "2026-01-01"
    with transaction(conn):
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at)"
            " VALUES (?, ?, 'folder', '/nowhere', ?, ?)",
            ("a" * 32, library_id, t, t),
        )
        for d in range(0, len(texts), 100):
            doc = uuid.UUID(int=d).hex
            conn.execute(
                "INSERT INTO documents (id, library_id, source_id, relative_path, title,"
                " parse_status, fulltext_status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, 'd', 'done', 'done', ?, ?)",
                (doc, library_id, "a" * 32, f"d{d}.md", t, t),
            )
            conn.executemany(
                "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text,"
                " checksum, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'h', ?, ?)",
                [
                    (uuid.uuid4().hex, library_id, doc, i, text, text, t, t)
                    for i, text in enumerate(texts[d : d + 100])
                ],
            )
    store.update(conn, library_id, GraphSettings(strategy="local"), None)
    pool.close_all()
    return library_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--names", type=int, default=5_000)
    parser.add_argument("--channel-chunks", type=int, default=100_000)
    args = parser.parse_args()
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
        t0 = time.perf_counter()
        report = extract_library(conn, library_id, CancelToken())
        elapsed = time.perf_counter() - t0
        print(
            f"local extraction: {args.chunks} chunks in {elapsed:.1f} s ="
            f" {args.chunks / elapsed:,.0f} chunks/s; {report.entities} entities,"
            f" {report.relations} relations, {report.evidence} evidence spans"
        )
        db.close_all()
    # channel latency on a larger library (the corpus repeated)
    big = (texts * (args.channel_chunks // len(texts) + 1))[: args.channel_chunks]
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        library_id = seed(data, big)
        db = open_database(data)
        conn = db.get()
        extract_library(conn, library_id, CancelToken())
        queries = [f"{rng.choice(pool_names)}谁审批" for _ in range(60)]
        channel.search(conn, [library_id], queries[0], 24)  # warm the automaton cache
        times, raw = [], []
        for q in queries:
            t0 = time.perf_counter()
            channel.search(conn, [library_id], q, 24)
            times.append((time.perf_counter() - t0) * 1000)
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
            f"graph channel at {args.channel_chunks:,} chunks: p50 {p50:.1f} ms, p95 {p95:.1f} ms;"
            f" raw evidence query p50 {raw50:.2f} ms ({p50 / raw50:.1f}×)"
        )
        db.close_all()


if __name__ == "__main__":
    main()
