"""The lexical indexes' lifecycle: the only code that writes `chunks_fts` and `chunks_cjk`
(besides the delete triggers of migrations 0003/0004, which drop a deleted chunk's index rows
whatever path deleted it, foreign-key cascades included).

Callers pass the connection of the transaction that changes the chunk row, so a chunk and its
index rows always change together. Parent chunks and disabled chunks are never indexed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from goodbuddy_kb.main_process.lexical.tokens import cjk_index_text, fts_index_text


def add(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
    """Index retrievable chunks given as ``(seq, index_text)``."""
    batch = list(rows)
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)",
        [(seq, fts_index_text(text)) for seq, text in batch],
    )
    conn.executemany(
        "INSERT INTO chunks_cjk (rowid, text) VALUES (?, ?)",
        [(seq, cjk_index_text(text)) for seq, text in batch],
    )


def remove(conn: sqlite3.Connection, seqs: Iterable[int]) -> None:
    keys = [(seq,) for seq in seqs]
    conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", keys)
    conn.executemany("DELETE FROM chunks_cjk WHERE rowid = ?", keys)


def rebuild(conn: sqlite3.Connection) -> None:
    """Re-derive both tables from the chunks (safe to run twice)."""
    conn.execute("DELETE FROM chunks_fts")
    conn.execute("DELETE FROM chunks_cjk")
    add(
        conn,
        conn.execute(
            "SELECT seq, index_text FROM chunks WHERE enabled = 1 AND role != 'parent' ORDER BY seq"
        ).fetchall(),
    )


def optimize(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')")
    conn.execute("INSERT INTO chunks_cjk (chunks_cjk) VALUES ('optimize')")
