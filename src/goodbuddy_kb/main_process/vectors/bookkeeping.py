"""Per-version bookkeeping the vector channel needs on every query — the dead rows the scanner
skips, the count of chunks without a live vector and whether the library holds both languages —
kept in memory and recomputed only after
a write.

A result is stamped with the database's vector-books generation (migration 0017: triggers on
``chunks`` and ``vector_rows`` move it on every write that can change the books — a chunk
added, deleted, disabled or moved to another role, a vector row added, retired or removed,
whichever connection or path made it) plus the version's row count. Writes that cannot change
the books (the diagnostics log every query appends to, settings, task progress) leave the
stamp alone, so a query at rest reuses the books, at 100,000 chunks saving two full counts and
a read of the dead-row index per query. The books are shared by every connection of the
process: the stamp is read in the same database, so it means the same for all of them.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.main_process.embeddings import language
from goodbuddy_kb.main_process.storage.keys import database_key
from goodbuddy_kb.main_process.vectors import store

#: Entries kept (databases × libraries × versions); past this the cache starts afresh.
MAX_ENTRIES = 256


@dataclass(frozen=True)
class Books:
    dead: npt.NDArray[np.int64]
    gaps: int
    #: Retrievable chunks of the library (live vectors = chunks − gaps).
    chunks: int = 0
    #: (documents fully covered, documents) — counted only while a first version fills.
    documents: tuple[int, int] = (0, 0)
    #: The library holds both languages (``embeddings.language.bilingual``, on a sample).
    bilingual: bool = False

    @property
    def chunk_share(self) -> float:
        """The share of retrievable chunks with a live vector (1.0 for an empty library)."""
        return 1.0 if self.chunks <= 0 else (self.chunks - self.gaps) / self.chunks


@dataclass(frozen=True)
class _Entry:
    stamp: tuple[int, int]
    books: Books


_cache: dict[tuple[str, str, str], _Entry] = {}
_lock = threading.Lock()


def _stamp(conn: sqlite3.Connection, version: store.Version) -> tuple[int, int]:
    (generation,) = conn.execute(
        "SELECT generation FROM vector_books_generation WHERE id = 1"
    ).fetchone()
    return int(generation), version.row_count


def books(conn: sqlite3.Connection, version: store.Version) -> Books:
    """Dead rows and gap count of ``version`` as ``conn`` sees the database now."""
    key = (database_key(conn), version.library_id, version.id)
    stamp = _stamp(conn, version)  # read before counting: a write in between moves it again
    with _lock:
        entry = _cache.get(key)
    if entry is not None and entry.stamp == stamp:
        return entry.books
    chunks, alive = store.chunk_counts(conn, version.library_id, version.id)
    gaps = max(0, chunks - alive)
    filling = gaps > 0 and version.state == "building"  # documents counted for a first fill
    documents = store.document_coverage(conn, version.library_id, version.id) if filling else (0, 0)
    mixed = language.bilingual(store.sample_texts(conn, version.library_id, chunks))
    fresh = Books(store.dead_rows(conn, version.id), gaps, chunks, documents, mixed)
    with _lock:
        if len(_cache) >= MAX_ENTRIES:
            _cache.clear()
        _cache[key] = _Entry(stamp, fresh)
    return fresh


def forget() -> None:
    """Drop every entry (tests; a closed database)."""
    with _lock:
        _cache.clear()
