"""Opening the database: WAL, foreign keys on, busy timeout; sqlite3 errors translated here."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from goodbuddy_kb.contracts.errors import ConflictError, InternalError, KbError, UnavailableError
from goodbuddy_kb.datadir import DATABASE_FILE
from goodbuddy_kb.main_process.lexical.tokens import cjk_index_text, fts_index_text
from goodbuddy_kb.main_process.storage import reserve

__all__ = ["DATABASE_FILE", "ConnectionPool", "connect", "transaction", "translate"]


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode; callers open explicit, short transactions."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10.0)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA busy_timeout = 10000")
    # The lexical indexes' text functions, so SQL (migrations, backfills) and Python agree.
    conn.create_function("kb_fts_text", 1, fts_index_text, deterministic=True)
    conn.create_function("kb_cjk_text", 1, cjk_index_text, deterministic=True)
    return conn


def translate(exc: sqlite3.Error) -> KbError:
    """The one place sqlite3 errors become product errors (no SQL or values leak out)."""
    text = str(exc)
    if isinstance(exc, sqlite3.IntegrityError):
        return ConflictError("the change conflicts with stored data", {"reason": text[:200]})
    if isinstance(exc, sqlite3.OperationalError) and (
        "locked" in text or "disk" in text or "readonly" in text or "unable to open" in text
    ):
        return UnavailableError(f"database unavailable: {text}")
    return InternalError("database error", {"kind": exc.__class__.__name__})


#: One writer: every write transaction in the process takes this lock (SQLite allows one anyway;
#: taking it here keeps writers from spinning on SQLITE_BUSY).
WRITE_LOCK = threading.RLock()


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One short write transaction: committed on success, rolled back on any exception — a
    failed COMMIT too (SQLite leaves the transaction open then, and the connection would hold
    the write lock). A write that finds the disk full gives back the reserve
    (:mod:`.reserve`), so that the failure can be recorded."""
    with WRITE_LOCK:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            if reserve.is_disk_full(exc):
                reserve.release_for(conn)
            raise


class ConnectionPool:
    """One connection per thread, all closed together at shutdown."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closed = False

    @property
    def path(self) -> Path:
        return self._path

    def get(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            with self._lock:
                if self._closed:
                    raise UnavailableError("the backend is shutting down")
                conn = connect(self._path)
                self._all.append(conn)
            self._local.conn = conn
        return conn

    def close_all(self) -> None:
        with self._lock:
            self._closed = True
            for conn in self._all:
                conn.close()
            self._all.clear()
