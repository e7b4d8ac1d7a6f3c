"""Lexical channels: quality on a Chinese reading-comprehension set, and latency at scale.

Quality (same run, same chunks): our fts + cjk channels fused by RRF, a jieba + BM25 reference
(jieba `lcut_for_search` tokens ranked by bm25s), and the FTS5 `unicode61`-only baseline.
Latency: channel p50/p95 at 10,000 and 100,000 chunks beside a raw FTS5 MATCH on the same terms.

    .venv/bin/python bench/lexical.py [--dataset DIR] [--skip-latency] [--skip-quality]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.lexical.tokens import normalize
from goodbuddy_kb.main_process.retrieval.fusion import weighted_rrf
from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool, transaction
from goodbuddy_kb.main_process.sync.engine import sync_source

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = ROOT.parent / "shared" / "benchmarks" / "cmrc2018-trial"
POOL = 24  # topK 6 × candidateMultiplier 4, the defaults


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def load(
    dataset: Path, pool: ConnectionPool
) -> tuple[str, list[dict[str, object]], dict[str, tuple[str, str]]]:
    conn = pool.get()
    library_id = libraries.create(conn, "bench").id
    src = sources.add(
        conn, library_id, "folder", str((dataset / "corpus").resolve()), [], [], False
    )
    sync_source(conn, src, CancelToken())
    chunks = {
        r["id"]: (r["relative_path"], r["content"])
        for r in conn.execute(
            "SELECT c.id, d.relative_path, c.content FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE c.role != 'parent'"
        )
    }
    queries = [
        json.loads(line)
        for line in (dataset / "queries.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return library_id, queries, chunks


def score(
    queries: list[dict[str, object]],
    chunks: dict[str, tuple[str, str]],
    ranker: Callable[[str], list[str]],
) -> tuple[float, float, float]:
    hits5 = mrr = 0.0
    n = 0
    latencies = []
    for q in queries:
        relevant = q["relevant"]
        assert isinstance(relevant, list)
        if not relevant:
            continue
        n += 1
        start = time.perf_counter()
        ranked = ranker(str(q["query"]))[:10]
        latencies.append(time.perf_counter() - start)
        first = None
        for rank, chunk_id in enumerate(ranked, start=1):
            path, content = chunks[chunk_id]
            for rel in relevant:
                answers = rel["answers"]
                if rel["doc"] == path and (
                    not answers or any(fold(a) in fold(content) for a in answers)
                ):
                    first = first or rank
        if first is not None:
            hits5 += first <= 5
            mrr += 1 / first
    return hits5 / n, mrr / n, statistics.median(latencies) * 1000


def quality(dataset: Path) -> None:
    import bm25s
    import jieba

    jieba.setLogLevel(60)
    with tempfile.TemporaryDirectory() as tmp:
        pool = open_database(Path(tmp))
        library_id, queries, chunks = load(dataset, pool)
        conn = pool.get()

        def ours(text: str) -> list[str]:
            q = build_query(text)
            fts = [h.chunk_id for h in search(conn, "fts", [library_id], q, POOL)]
            cjk = [h.chunk_id for h in search(conn, "cjk", [library_id], q, POOL)]
            return [i for i, _ in weighted_rrf({"fts": fts, "cjk": cjk}, q.channel_weights(1.0))]

        ids = sorted(chunks)
        with transaction(conn):
            conn.execute(
                "CREATE VIRTUAL TABLE baseline USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2')"
            )
            conn.executemany(
                "INSERT INTO baseline (rowid, text) VALUES (?, ?)",
                [(i, normalize(chunks[c][1])) for i, c in enumerate(ids)],
            )

        def unicode61(text: str) -> list[str]:
            import re

            terms = re.findall(r"\w+", normalize(text))
            if not terms:
                return []
            match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
            rows = conn.execute(
                "SELECT rowid FROM baseline WHERE baseline MATCH ? ORDER BY rank LIMIT ?",
                (match, POOL),
            )
            return [ids[r[0]] for r in rows]

        corpus_tokens = [jieba.lcut_for_search(chunks[c][1]) for c in ids]
        retriever = bm25s.BM25()
        retriever.index(corpus_tokens, show_progress=False)

        def jieba_bm25(text: str) -> list[str]:
            tokens = [t for t in jieba.lcut_for_search(text) if t.strip()]
            if not tokens:
                return []
            docs, _scores = retriever.retrieve([tokens], k=min(10, len(ids)), show_progress=False)
            return [ids[int(i)] for i in docs[0]]

        print(
            f"{dataset.name}: {len(chunks)} chunks, {sum(1 for q in queries if q['relevant'])} answerable queries"
        )
        print(f"{'ranker':<28}{'Recall@5':>10}{'MRR@10':>10}{'p50 ms':>10}")
        for name, ranker in (
            ("fts+cjk (ours, RRF)", ours),
            ("jieba + bm25s reference", jieba_bm25),
            ("FTS5 unicode61 baseline", unicode61),
        ):
            r5, mrr, p50 = score(queries, chunks, ranker)
            print(f"{name:<28}{r5:>10.3f}{mrr:>10.3f}{p50:>10.2f}")
        pool.close_all()


def vocabulary(rng: random.Random) -> tuple[list[str], list[str]]:
    """A synthetic but realistically selective vocabulary: 4,000 Chinese words of 2–3
    characters drawn from 3,000 common ideographs, and 800 Latin words."""
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    zh = ["".join(rng.choice(chars) for _ in range(rng.choice((2, 2, 3)))) for _ in range(4000)]
    letters = "abcdefghijklmnopqrstuvwxyz"
    en = ["".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(800)]
    return zh, en


def latency(sizes: list[int]) -> None:
    rng = random.Random(11)
    zh_words, en_words = vocabulary(rng)
    queries = [
        "".join(rng.choice(zh_words) for _ in range(6)) + "是什么",
        "".join(rng.choice(zh_words) for _ in range(10)),
        " ".join(rng.choice(en_words) for _ in range(5)),
        f"ERR_{rng.randint(0, 99)} " + rng.choice(zh_words) + " " + rng.choice(en_words),
        rng.choice(zh_words)[0],
    ]
    print(f"{'chunks':>8} {'channel':<6}{'p50 ms':>9}{'p95 ms':>9}{'raw MATCH p50':>15}")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            pool = open_database(Path(tmp))
            conn = pool.get()
            library_id = libraries.create(conn, "lat").id
            t = "2026-01-01"
            with transaction(conn):
                conn.execute(
                    "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at) VALUES ('s', ?, 'folder', '/x', ?, ?)",
                    (library_id, t, t),
                )
                for d in range(size // 10):
                    conn.execute(
                        "INSERT INTO documents (id, library_id, source_id, relative_path, title, created_at, updated_at) VALUES (?, ?, 's', ?, 'x', ?, ?)",
                        (f"d{d}", library_id, f"{d}.md", t, t),
                    )
                rows = []
                for i in range(size):
                    text = (
                        "".join(rng.choice(zh_words) for _ in range(60))
                        + " "
                        + " ".join(rng.choice(en_words) for _ in range(20))
                        + f" ERR_{i % 100}"
                    )
                    rows.append(
                        (f"c{i:07d}", library_id, f"d{i // 10}", i % 10, text, text, "h", t, t)
                    )
                conn.executemany(
                    "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
                conn.execute(
                    "INSERT INTO chunks_fts (rowid, text) SELECT seq, kb_fts_text(index_text) FROM chunks"
                )
                conn.execute(
                    "INSERT INTO chunks_cjk (rowid, text) SELECT seq, kb_cjk_text(index_text) FROM chunks"
                )
            for channel in ("cjk", "fts"):
                ours_ms, raw_ms = [], []
                for _ in range(6):
                    for text in queries:
                        q = build_query(text)
                        match = q.cjk_match if channel == "cjk" else q.fts_match
                        if match is None:
                            continue
                        start = time.perf_counter()
                        search(conn, channel, [library_id], q, POOL)
                        ours_ms.append((time.perf_counter() - start) * 1000)
                        table = "chunks_cjk" if channel == "cjk" else "chunks_fts"
                        start = time.perf_counter()
                        conn.execute(
                            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rank LIMIT ?",
                            (match, POOL),
                        ).fetchall()
                        raw_ms.append((time.perf_counter() - start) * 1000)
                ours_ms.sort()
                p95 = ours_ms[int(len(ours_ms) * 0.95) - 1]
                print(
                    f"{size:>8} {channel:<6}{statistics.median(ours_ms):>9.1f}{p95:>9.1f}{statistics.median(raw_ms):>15.1f}"
                )
            pool.close_all()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-quality", action="store_true")
    args = parser.parse_args()
    if not args.skip_quality:
        quality(args.dataset)
    if not args.skip_latency:
        latency([10_000, 100_000])


if __name__ == "__main__":
    main()
