"""Vector index compaction (``vectors/store.compact``): a version of N rows of which a quarter
are dead (chunks changed since) is copied into a new version of its live rows. Prints the time
the compaction takes beside a reference measured in the same run — writing the same live rows
into a new version with ``store.append`` alone — and the vector scan's p50 before and after
(every query reads the dead rows until the compaction).

    .venv/bin/python bench/compaction.py [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from _seed import seed_chunks
from _timing import median_ms
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import int8_packed, store
from goodbuddy_kb.main_process.vectors.scanner import scan

DIMS = 384
DEAD_SHARE = 0.25


def seed(data_dir: Path, n: int, rng: np.random.Generator) -> tuple[object, store.Version]:
    """A library of ``n`` chunks with a vector each, then a quarter of them embedded again."""
    _pool, conn, library_id = seed_chunks(data_dir, ["x"] * n)
    seqs = [r[0] for r in conn.execute("SELECT seq FROM chunks ORDER BY seq")]
    version = store.create(conn, data_dir, library_id, "bench", "bench", DIMS)
    matrix = rng.standard_normal((n, DIMS), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    store.append(conn, data_dir, version, [(s, "h") for s in seqs], matrix)
    again = seqs[: int(n * DEAD_SHARE)]
    store.append(
        conn, data_dir, store.get(conn, version.id), [(s, "h") for s in again], matrix[: len(again)]
    )
    with transaction(conn):
        conn.execute(
            "UPDATE libraries SET current_vector_version = ? WHERE id = ?", (version.id, library_id)
        )
        conn.execute("UPDATE vector_versions SET state = 'ready' WHERE id = ?", (version.id,))
    return conn, store.get(conn, version.id)


def scan_ms(data_dir: Path, conn: object, version: store.Version, queries: np.ndarray) -> float:
    dead = store.dead_rows(conn, version.id)  # type: ignore[arg-type]
    path = store.path_of(data_dir, version.id)
    qi = iter(range(10**9))
    # both measured once the int8 copy is packed (a first large scan packs it in the background)
    scan(path, version.row_count, DIMS, queries[0], 24, CancelToken(), dead=dead)
    int8_packed.wait()
    return median_ms(
        lambda: scan(
            path,
            version.row_count,
            DIMS,
            queries[next(qi) % len(queries)],
            24,
            CancelToken(),
            dead=dead,
        ),
        rounds=41,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    queries = rng.standard_normal((32, DIMS), dtype=np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    print(
        f"{'rows':>8} {'dead':>6} {'compact s':>10} {'append s':>9} {'ratio':>6} {'scan before ms':>15} {'after ms':>9} {'ratio':>6}"
    )
    for n in (int(x) for x in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp)
            conn, version = seed(data_dir, n, rng)
            before = scan_ms(data_dir, conn, version, queries)
            dead = store.dead_count(conn, version.id)  # type: ignore[arg-type]
            # the reference: the live rows written into a fresh version by append alone
            live = conn.execute(  # type: ignore[attr-defined]
                "SELECT row, chunk_seq, checksum FROM vector_rows WHERE version_id = ? AND alive = 1 ORDER BY row",
                (version.id,),
            ).fetchall()
            data = np.fromfile(store.path_of(data_dir, version.id), dtype=np.float32).reshape(
                -1, DIMS
            )
            start = time.perf_counter()
            ref = store.create(conn, data_dir, version.library_id, "ref", "ref", DIMS)  # type: ignore[arg-type]
            store.append(
                conn, data_dir, ref, [(r[1], r[2]) for r in live], data[[r[0] for r in live]]
            )  # type: ignore[arg-type]
            reference = time.perf_counter() - start
            store.discard(conn, data_dir, ref.id)  # type: ignore[arg-type]
            start = time.perf_counter()
            made = store.compact(conn, data_dir, version, lambda: None)  # type: ignore[arg-type]
            took = time.perf_counter() - start
            assert made is not None and made.row_count == n
            after = scan_ms(data_dir, conn, made, queries)
            print(
                f"{n:>8} {dead:>6} {took:>10.2f} {reference:>9.2f} {took / reference:>6.2f} {before:>15.1f} {after:>9.1f} {after / before:>6.2f}"
            )
            int8_packed.clear()


if __name__ == "__main__":
    main()
