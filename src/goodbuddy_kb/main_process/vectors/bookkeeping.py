"""Per-version bookkeeping the vector channel needs on every query — the dead rows the scanner
skips and the count of chunks without a live vector — kept in memory and recomputed only after
a write.

A result is stamped with its connection's view of the database: ``PRAGMA data_version`` (which
moves whenever another connection commits) and the connection's own ``total_changes``, plus
the version's row count. Every write that can change the books (an append, a chunk added,
edited, disabled or deleted, whose triggers retire vector rows) commits and so moves the stamp;
a query at rest reuses the books, at 100,000 chunks saving two full counts and a read of the
dead-row index per query.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.vectors import store

#: Entries kept (connections × libraries); past this the cache starts afresh.
MAX_ENTRIES = 256


@dataclass(frozen=True)
class Books:
    dead: npt.NDArray[np.int64]
    gaps: int


@dataclass(frozen=True)
class _Entry:
    conn: sqlite3.Connection
    stamp: tuple[int, int, int]
    books: Books


_cache: dict[tuple[int, str, str], _Entry] = {}
_lock = threading.Lock()


def _stamp(conn: sqlite3.Connection, version: store.Version) -> tuple[int, int, int]:
    (data_version,) = conn.execute("PRAGMA data_version").fetchone()
    return int(data_version), conn.total_changes, version.row_count


def books(conn: sqlite3.Connection, version: store.Version) -> Books:
    """Dead rows and gap count of ``version`` as ``conn`` sees the database now."""
    key = (id(conn), version.library_id, version.id)
    stamp = _stamp(conn, version)
    with _lock:
        entry = _cache.get(key)
    if entry is not None and entry.conn is conn and entry.stamp == stamp:
        return entry.books
    fresh = Books(
        store.dead_rows(conn, version.id), store.gap_count(conn, version.library_id, version.id)
    )
    with _lock:
        if len(_cache) >= MAX_ENTRIES:
            _cache.clear()
        _cache[key] = _Entry(conn, stamp, fresh)
    return fresh


def forget() -> None:
    """Drop every entry (tests; a closed database)."""
    with _lock:
        _cache.clear()
