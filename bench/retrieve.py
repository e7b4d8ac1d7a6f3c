"""End-to-end `knowledge:retrieve` over the real socket at 10,000 and 100,000 chunks (or a
million: ``--sizes 100000,1000000``; deterministic provider), with and without local rerank,
with per-channel timings and each channel's ratio to its reference measured in this process on
the same data, query by query, right after the socket queries: the raw FTS5 MATCH for fts and
cjk, the paged scan plus the query's embedding for vector. Also the backend's resident memory
idle and at its peak over the queries, the first query's time and, for a version without its
int8 copy, how long the backend took to build it in the background, and how often the vector
scan's top 10 (int8 first pass + exact rescoring above ``scanner.EXACT_MAX_ROWS`` rows) is
identical to an exact float32 scan's, with both scans' p50 in this process. After the first
query the bench waits until the backend's CPU settles (it packs a large version's int8 copy in
the background: ``vectors/int8_packed.py``) and says how long that took.

    .venv/bin/python bench/retrieve.py [--sizes 10000,100000] [--rounds 30] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import RETRIEVE
from goodbuddy_kb.contracts.models import EmbeddingConnection
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings import save_connection
from goodbuddy_kb.main_process.embeddings.base import l2_normalise
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.lexical import build_query
from goodbuddy_kb.main_process.lexical.tokens import bigrams, cjk_runs, latin_terms, normalize
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import int8_file, scanner, store
from goodbuddy_kb.main_process.vectors.channel import VERIFY_MARGIN
from goodbuddy_kb.main_process.vectors.scanner import scan

DB = "goodbuddy-kb.sqlite3"
#: Pause between the socket queries and the in-process references (longer than OpenBLAS's
#: threads spin after their last product).
REST_S = 0.5


def vocabulary(rng: random.Random) -> tuple[list[str], list[str]]:
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
    zh = ["".join(rng.choice(chars) for _ in range(rng.choice((2, 2, 3)))) for _ in range(4000)]
    en = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
        for _ in range(800)
    ]
    return zh, en


#: Chunks written per block while seeding (texts, chunk rows and vectors alike).
SEED_BLOCK = 50_000


class FastDeterministic:
    """:class:`DeterministicProvider`'s passages, identical bit for bit (checked on every seed),
    with each feature's hash computed once and a block's vectors summed in one ``bincount``:
    a million chunks take minutes instead of twenty."""

    def __init__(self, dims: int = 384) -> None:
        self.dims = dims
        self.cache: dict[str, int] = {}

    def _feature(self, feature: str) -> int:
        hit = self.cache.get(feature)
        if hit is None:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            hit = (int.from_bytes(digest[:4], "little") % self.dims) * 2 + (digest[4] & 1)
            self.cache[feature] = hit
        return hit

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        ids: list[int] = []
        counts: list[int] = []
        for text in texts:
            normalized = normalize(text)
            runs = cjk_runs(normalized)
            features = [g for run in runs for g in bigrams(run)]
            features += [c for run in runs for c in run]
            features += latin_terms(normalized)
            ids.extend(map(self._feature, features))
            counts.append(len(features))
        coded = np.array(ids, dtype=np.int64)
        flat = np.repeat(np.arange(len(texts)), counts) * self.dims + (coded >> 1)
        sums = np.bincount(
            flat, weights=np.where(coded & 1, 1.0, -1.0), minlength=len(texts) * self.dims
        )
        return l2_normalise(sums.reshape(len(texts), self.dims).astype(np.float32))


def seed(data_dir: Path, n: int, zh: list[str], en: list[str], rng: random.Random) -> str:
    pool = open_database(data_dir)
    conn = pool.get()
    library_id = libraries.create(conn, "bench").id
    save_connection(conn, EmbeddingConnection(kind="deterministic"))
    provider = DeterministicProvider()
    fast = FastDeterministic()
    t = "2026-01-01"
    with transaction(conn):
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at) VALUES (?, ?, 'folder', '/bench', ?, ?)",
            ("a" * 32, library_id, t, t),
        )
        conn.executemany(
            "INSERT INTO documents (id, library_id, source_id, relative_path, title, parse_status, fulltext_status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'done', 'done', ?, ?)",
            (
                (uuid.UUID(int=d).hex, library_id, "a" * 32, f"doc{d}.md", f"Doc {d}", t, t)
                for d in range((n + 19) // 20)
            ),
        )
    version = store.create(conn, data_dir, library_id, provider.fingerprint, provider.label, 384)
    last_seq = 0
    for first in range(0, n, SEED_BLOCK):
        texts = [
            "".join(rng.choice(zh) for _ in range(50))
            + " "
            + " ".join(rng.choice(en) for _ in range(15))
            for _ in range(min(SEED_BLOCK, n - first))
        ]
        with transaction(conn):
            conn.executemany(
                "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text, checksum, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'h', ?, ?)",
                (
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
                    for i, text in enumerate(texts, start=first)
                ),
            )
        seqs = [
            row[0]
            for row in conn.execute(
                "SELECT seq FROM chunks WHERE seq > ? ORDER BY seq", (last_seq,)
            )
        ]
        last_seq = seqs[-1]
        vectors = fast.embed_passages(texts)
        if first == 0:
            sample = provider.embed_passages(texts[:200])
            assert np.array_equal(vectors[:200], sample), "the fast vectors drifted"
        store.append(conn, data_dir, store.get(conn, version.id), [(s, "h") for s in seqs], vectors)
    with transaction(conn):
        conn.execute(
            "INSERT INTO chunks_fts (rowid, text) SELECT seq, kb_fts_text(index_text) FROM chunks"
        )
        conn.execute(
            "INSERT INTO chunks_cjk (rowid, text) SELECT seq, kb_cjk_text(index_text) FROM chunks"
        )
    store.promote(conn, data_dir, store.get(conn, version.id))
    pool.close_all()
    return library_id


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MiB (Linux; NaN elsewhere)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return float("nan"), float("nan")
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return tuple(float(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))  # type: ignore[return-value]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, quiet_s: float = 0.5, limit_s: float = 120.0) -> float:
    """Seconds until the backend has spent < 2 % of a core over ``quiet_s`` (its background
    work after the first query, packing the int8 copy, is done)."""
    start = time.perf_counter()
    before = cpu_seconds(pid)
    while time.perf_counter() - start < limit_s:
        time.sleep(quiet_s)
        now = cpu_seconds(pid)
        if now - before < 0.02 * quiet_s:
            break
        before = now
    return time.perf_counter() - start


class References:
    """What each channel cannot go below, measured in this process on the same data: the raw
    FTS5 MATCH (ranked, limited to the pool) and the paged scan plus the query's embedding."""

    def __init__(self, data_dir: Path, library_id: str) -> None:
        self.data_dir = data_dir
        self.conn = sqlite3.connect(f"file:{data_dir / DB}?mode=ro", uri=True)
        (version_id,) = self.conn.execute(
            "SELECT current_vector_version FROM libraries WHERE id = ?", (library_id,)
        ).fetchone()
        (self.rows,) = self.conn.execute(
            "SELECT row_count FROM vector_versions WHERE id = ?", (version_id,)
        ).fetchone()
        self.path = store.path_of(data_dir, version_id)
        self.provider = DeterministicProvider()

    def measure(self, query: str, pool: int) -> dict[str, float]:
        out: dict[str, float] = {}
        parsed = build_query(query)
        for channel, match in (("fts", parsed.fts_match), ("cjk", parsed.cjk_match)):
            if match is None:
                continue
            table = "chunks_cjk" if channel == "cjk" else "chunks_fts"
            t0 = time.perf_counter()
            self.conn.execute(
                f"SELECT rowid, bm25({table}) AS r FROM {table} WHERE {table} MATCH ?"
                " ORDER BY r LIMIT ?",
                (match, pool),
            ).fetchall()
            out[channel] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        vector = self.provider.embed_query(query)
        scan(self.path, self.rows, 384, vector, pool + VERIFY_MARGIN, CancelToken())
        out["vector"] = (time.perf_counter() - t0) * 1000
        return out

    def wait_for_int8_copy(self) -> float:
        """Seconds until the backend's background rebuild of a missing int8 copy is done (0
        when the version is scanned exactly or its copy was already there)."""
        copy = int8_file.path_for(self.path)
        start = time.perf_counter()
        if self.rows <= scanner.EXACT_MAX_ROWS or int8_file.covered(copy, 384) >= self.rows:
            return 0.0
        while int8_file.covered(copy, 384) < self.rows:
            time.sleep(0.2)
        return time.perf_counter() - start

    def agreement(self, queries: list[str], k: int) -> str:
        """How many queries' top 10 of the scan the channel runs equals the exact float32
        scan's (and their full top ``k``), with both scans' p50 in ms."""
        same_10 = same_k = 0
        fast_ms: list[float] = []
        exact_ms: list[float] = []
        threshold = scanner.EXACT_MAX_ROWS
        for query in queries:
            vector = self.provider.embed_query(query)
            t0 = time.perf_counter()
            fast = scan(self.path, self.rows, 384, vector, k, CancelToken())
            fast_ms.append((time.perf_counter() - t0) * 1000)
            scanner.EXACT_MAX_ROWS = self.rows
            try:
                t0 = time.perf_counter()
                exact = scan(self.path, self.rows, 384, vector, k, CancelToken())
                exact_ms.append((time.perf_counter() - t0) * 1000)
            finally:
                scanner.EXACT_MAX_ROWS = threshold
            same_10 += fast.rows[:10].tolist() == exact.rows[:10].tolist()
            same_k += fast.rows.tolist() == exact.rows.tolist()
        path = "int8 first pass + exact rescoring" if self.rows > threshold else "exact scan"
        return (
            f"vector top 10 identical to the exact float32 scan for {same_10}/{len(queries)}"
            f" queries ({100 * same_10 / len(queries):.1f} %; top {k}: {same_k}); scan p50"
            f" {statistics.median(fast_ms):.1f} ms ({path}) vs exact float32"
            f" {statistics.median(exact_ms):.1f} ms"
        )


def seeded(root: Path | None, tmp: str, n: int, rng: random.Random) -> tuple[Path, str, float]:
    """A data directory with ``n`` chunks and their vectors (kept under ``root`` to reuse)."""
    data_dir = (root / str(n)) if root is not None else Path(tmp)
    marker = data_dir / "bench-library"
    if marker.is_file():
        return data_dir, marker.read_text().strip(), 0.0
    data_dir.mkdir(parents=True, exist_ok=True)
    zh, en = vocabulary(rng)
    start = time.perf_counter()
    library_id = seed(data_dir, n, zh, en, rng)
    marker.write_text(library_id)
    return data_dir, library_id, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument(
        "--agreement", type=int, default=85, help="queries besides the timed ones compared"
    )
    parser.add_argument(
        "--keep", type=Path, default=None, help="seed into DIR/<size> once and reuse it"
    )
    args = parser.parse_args()
    rng = random.Random(5)
    zh, en = vocabulary(rng)
    print(f"{'chunks':>8} {'rerank':<6}{'p50 ms':>8}{'p95 ms':>8}  per-channel p50 ms")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            data_dir, library_id, seed_s = seeded(args.keep, tmp, n, random.Random(5))
            queries = ["".join(rng.choice(zh) for _ in range(8)) + "是什么？" for _ in range(10)]
            queries += [" ".join(rng.choice(en) for _ in range(4)) for _ in range(5)]
            refs = References(data_dir, library_id)
            backend = BackendProcess.start(data_dir)
            try:
                client = BlockingClient(
                    backend.endpoint.server_name, backend.endpoint.secret
                ).open()
                idle_rss, _ = rss_mb(backend.pid)
                t0 = time.perf_counter()
                first = client.call(
                    RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=queries[0])
                )
                first_ms = (time.perf_counter() - t0) * 1000
                copy_s = refs.wait_for_int8_copy()
                settled_s = settle(backend.pid)
                pool_k = first.settings.top_k * first.settings.candidate_multiplier + VERIFY_MARGIN
                for mode in ("off", "local"):
                    totals: list[float] = []
                    channel: dict[str, list[float]] = {}
                    floor: dict[str, list[float]] = {}
                    paired: dict[str, list[float]] = {}
                    answered = []
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
                        answered.append((q, res))
                    # The references run after the queries, on the same queries, not between
                    # them: OpenBLAS worker threads spin for a while after a product, so a scan
                    # in this process right after one in the backend (or the reverse) would
                    # compete for the same two cores and slow both.
                    time.sleep(REST_S)
                    for q, res in answered:
                        pool = res.settings.top_k * res.settings.candidate_multiplier
                        for k, v in refs.measure(q, pool).items():
                            if k in res.diagnostics.used_channels:  # pairs where both ran
                                floor.setdefault(k, []).append(v)
                                paired.setdefault(k, []).append(res.diagnostics.timings_ms[k])
                    time.sleep(REST_S)
                    totals.sort()
                    per = " ".join(f"{k} {statistics.median(v):.1f}" for k, v in channel.items())
                    print(
                        f"{n:>8} {mode:<6}{statistics.median(totals):>8.1f}{totals[int(len(totals) * 0.95) - 1]:>8.1f}  {per}"
                    )
                    ratios = []
                    for k, label in (
                        ("vector", "scan + query embedding"),
                        ("fts", "raw MATCH"),
                        ("cjk", "raw MATCH"),
                    ):
                        if paired.get(k) and floor.get(k):
                            ours, ref = statistics.median(paired[k]), statistics.median(floor[k])
                            ratios.append(f"{k} {ours:.1f}/{ref:.1f} ({label}) = {ours / ref:.2f}×")
                    print(f"{'':>8} {'':<6}vs reference: " + "; ".join(ratios))
                _, peak_rss = rss_mb(backend.pid)
                client.close()
            finally:
                backend.stop()
            print(
                f"{'':>8} backend resident memory: {idle_rss:.0f} MiB idle,"
                f" {peak_rss:.0f} MiB peak over the queries; first query {first_ms:.0f} ms"
                f"{f'; int8 copy built in {copy_s:.1f} s after it' if copy_s else ''};"
                f" backend busy {settled_s:.1f} s after it (packing the int8 copy)"
            )
            time.sleep(REST_S)
            extra = [
                "".join(rng.choice(zh) for _ in range(8)) + "是什么？"
                for _ in range(args.agreement)
            ]
            print(f"{'':>8} " + refs.agreement(queries + extra, pool_k))
            if seed_s:
                print(f"{'':>8} (seeded {n} chunks with vectors in {seed_s:.1f} s)")


if __name__ == "__main__":
    main()
