"""Compaction of a vector index on real SQLite and real files: the copy holds the live rows in
order with the same vectors; a chunk changed while the rows are copied keeps the old index
serving and leaves no file of the copy behind."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.local import DeterministicProvider
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.vectors import build, store


def matrix(data_dir: Path, version: store.Version) -> np.ndarray:
    data = np.fromfile(store.path_of(data_dir, version.id), dtype=np.float32)
    return data.reshape(-1, version.dims)


def vectors_of(
    data_dir: Path, version: store.Version, conn: sqlite3.Connection
) -> dict[int, np.ndarray]:
    rows = conn.execute(
        "SELECT row, chunk_seq FROM vector_rows WHERE version_id = ? AND alive = 1",
        (version.id,),
    ).fetchall()
    data = matrix(data_dir, version)
    return {seq: data[row] for row, seq in rows}


def embed_again(conn: sqlite3.Connection, data_dir: Path, version: store.Version) -> None:
    """Half the chunks embedded again (as after an edit): their first rows die."""
    rows = conn.execute(
        "SELECT row, chunk_seq, checksum FROM vector_rows WHERE version_id = ? AND row % 2 = 0",
        (version.id,),
    ).fetchall()
    items = [(seq, checksum) for _row, seq, checksum in rows]
    store.append(conn, data_dir, version, items, matrix(data_dir, version)[[r[0] for r in rows]])


def test_the_copy_keeps_the_live_vectors_and_a_change_meanwhile_keeps_the_old_index(
    pool: ConnectionPool, data_dir: Path, library: str
) -> None:
    conn = pool.get()
    build.vectorise(conn, data_dir, library, DeterministicProvider(), CancelToken())
    old = store.current(conn, library)
    assert old is not None and old.row_count >= 4
    embed_again(conn, data_dir, old)
    assert store.dead_count(conn, old.id) > 0
    before = vectors_of(data_dir, old, conn)

    # a chunk whose vector is being copied changes: the copy is not made current
    def change() -> None:
        conn.execute("UPDATE chunks SET checksum = 'changed' WHERE seq = ?", (min(before),))

    assert store.compact(conn, data_dir, store.get(conn, old.id), change) is None
    assert store.current(conn, library) == store.get(conn, old.id)
    assert sorted(p.name for p in (data_dir / store.VECTOR_DIR).iterdir() if ".f32" in p.name) == [
        f"{old.id}.f32"
    ]

    # (the change killed its vector in every index, as an edit does: it is embedded again)
    assert store.count_missing(conn, library, old.id) == 1
    build.vectorise(conn, data_dir, library, DeterministicProvider(), CancelToken())
    before = vectors_of(data_dir, old, conn)
    made = store.compact(conn, data_dir, store.get(conn, old.id), lambda: None)
    assert made is not None and store.current(conn, library) == made
    assert made.row_count == len(before) and store.dead_count(conn, made.id) == 0
    after = vectors_of(data_dir, made, conn)
    assert after.keys() == before.keys()
    assert all(np.array_equal(after[seq], before[seq]) for seq in before)
    assert not store.path_of(data_dir, old.id).exists()
