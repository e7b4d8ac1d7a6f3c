"""End-to-end `knowledge:retrieve` over the real socket at 10,000 and 100,000 chunks
(deterministic provider), with and without local rerank, with per-channel timings, beside the
same call dispatched in-process.

    .venv/bin/python bench/retrieve.py [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import RETRIEVE
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.embeddings import save_connection
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import store


def vocabulary(rng: random.Random) -> tuple[list[str], list[str]]:
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    zh = ["".join(rng.choice(chars) for _ in range(rng.choice((2, 2, 3)))) for _ in range(4000)]
    en = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
        for _ in range(800)
    ]
    return zh, en


def seed(data_dir: Path, n: int, zh: list[str], en: list[str], rng: random.Random) -> str:
    pool = open_database(data_dir)
    conn = pool.get()
    library_id = libraries.create(conn, "bench").id
    save_connection(conn, EmbeddingConnection(kind="deterministic"))
    provider = DeterministicProvider()
    t = "2026-01-01"
    texts = [
        "".join(rng.choice(zh) for _ in range(50))
        + " "
        + " ".join(rng.choice(en) for _ in range(15))
        for _ in range(n)
    ]
    with transaction(conn):
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at) VALUES (?, ?, 'folder', '/bench', ?, ?)",
            ("a" * 32, library_id, t, t),
        )
        docs = [
            (uuid.UUID(int=d).hex, library_id, "a" * 32, f"doc{d}.md", f"Doc {d}", t, t)
            for d in range(n // 20)
        ]
        conn.executemany(
            "INSERT INTO documents (id, library_id, source_id, relative_path, title, parse_status, fulltext_status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'done', 'done', ?, ?)",
            docs,
        )
        conn.executemany(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'h', ?, ?)",
            [
                (
                    uuid.UUID(int=10**9 + i).hex,
                    library_id,
                    uuid.UUID(int=i // 20).hex,
                    i % 20,
                    text,
                    text,
                    t,
                    t,
                )
                for i, text in enumerate(texts)
            ],
        )
        conn.execute(
            "INSERT INTO chunks_fts (rowid, text) SELECT seq, kb_fts_text(index_text) FROM chunks"
        )
        conn.execute(
            "INSERT INTO chunks_cjk (rowid, text) SELECT seq, kb_cjk_text(index_text) FROM chunks"
        )
    version = store.create(conn, data_dir, library_id, provider.fingerprint, provider.label, 384)
    seqs = [row[0] for row in conn.execute("SELECT seq FROM chunks ORDER BY seq")]
    for first in range(0, n, 5_000):
        block = texts[first : first + 5_000]
        store.append(
            conn,
            data_dir,
            store.get(conn, version.id),
            [(s, "h") for s in seqs[first : first + 5_000]],
            provider.embed_passages(block),
        )
    store.promote(conn, data_dir, store.get(conn, version.id))
    pool.close_all()
    return library_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(5)
    zh, en = vocabulary(rng)
    print(f"{'chunks':>8} {'rerank':<6}{'p50 ms':>8}{'p95 ms':>8}  per-channel p50 ms")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp)
            start = time.perf_counter()
            library_id = seed(data_dir, n, zh, en, rng)
            seed_s = time.perf_counter() - start
            queries = ["".join(rng.choice(zh) for _ in range(8)) + "是什么？" for _ in range(10)]
            queries += [" ".join(rng.choice(en) for _ in range(4)) for _ in range(5)]
            backend = BackendProcess.start(data_dir)
            try:
                client = BlockingClient(
                    backend.endpoint.server_name, backend.endpoint.secret
                ).open()
                for mode in ("off", "local"):
                    totals: list[float] = []
                    channel: dict[str, list[float]] = {}
                    for i in range(args.rounds):
                        q = queries[i % len(queries)]
                        t0 = time.perf_counter()
                        res = client.call(
                            RETRIEVE,
                            r.RetrieveRequest(library_ids=[library_id], query=q, rerank=mode),
                        )
                        totals.append((time.perf_counter() - t0) * 1000)
                        for k, v in res.diagnostics.timings_ms.items():
                            channel.setdefault(k, []).append(v)
                        assert res.diagnostics.vector_scanned == n
                    totals.sort()
                    per = " ".join(f"{k} {statistics.median(v):.1f}" for k, v in channel.items())
                    print(
                        f"{n:>8} {mode:<6}{statistics.median(totals):>8.1f}{totals[int(len(totals) * 0.95) - 1]:>8.1f}  {per}"
                    )
                client.close()
            finally:
                backend.stop()
            print(f"{'':>8} (seeded {n} chunks with vectors in {seed_s:.1f} s)")


if __name__ == "__main__":
    main()
