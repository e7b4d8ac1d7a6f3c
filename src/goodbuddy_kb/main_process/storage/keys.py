"""What per-database caches are keyed by: a module of its own, with nothing to import, so that
the lexical channels' caches can use it while `storage.db` imports the lexical tokenizers."""

from __future__ import annotations

import sqlite3


def database_key(conn: sqlite3.Connection) -> str:
    """The main database file of ``conn``: what per-database caches are keyed by (two data
    directories never share an entry; an in-memory database is its connection's own)."""
    for _, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return str(file) or f"memory:{id(conn)}"
    return f"memory:{id(conn)}"
