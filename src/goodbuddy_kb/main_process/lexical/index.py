"""The lexical indexes' lifecycle: the only code that writes `chunks_fts` and `chunks_cjk`
(besides the delete triggers of migrations 0003/0004/0012, which drop a deleted chunk's index
rows whatever path deleted it, foreign-key cascades included).

Each table has two columns: ``text`` (the chunk's index text) and ``heading`` (its document's
title and heading path, which count in matching but never appear in content or citations).
Callers pass the connection of the transaction that changes the chunk row, so a chunk and its
index rows always change together. Parent chunks and disabled chunks are never indexed.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from goodbuddy_kb.main_process.lexical.tokens import cjk_index_text, fts_index_text, heading_text

#: Most ids in one `IN (...)` lookup.
_LOOKUP = 500


def _headings(conn: sqlite3.Connection, seqs: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for first in range(0, len(seqs), _LOOKUP):
        part = seqs[first : first + _LOOKUP]
        marks = ",".join("?" for _ in part)
        for seq, title, path in conn.execute(
            "SELECT c.seq, d.title, c.heading_path FROM chunks c"
            f" JOIN documents d ON d.id = c.document_id WHERE c.seq IN ({marks})",
            part,
        ):
            out[seq] = heading_text(title or "", json.loads(path or "[]"))
    return out


def add(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> None:
    """Index retrievable chunks given as ``(seq, index_text)``; the heading column is read from
    the chunk's row and its document's title."""
    batch = list(rows)
    if not batch:
        return
    headings = _headings(conn, [seq for seq, _ in batch])
    conn.executemany(
        "INSERT INTO chunks_fts (rowid, text, heading) VALUES (?, ?, ?)",
        [(seq, fts_index_text(text), fts_index_text(headings.get(seq, ""))) for seq, text in batch],
    )
    conn.executemany(
        "INSERT INTO chunks_cjk (rowid, text, heading) VALUES (?, ?, ?)",
        [(seq, cjk_index_text(text), cjk_index_text(headings.get(seq, ""))) for seq, text in batch],
    )


def refresh_headings(conn: sqlite3.Connection, seqs: Iterable[int]) -> int:
    """Re-index the chunks among ``seqs`` whose title or heading path changed while their text
    did not (a renamed heading, a new document title); returns how many."""
    wanted = list(seqs)
    headings = _headings(conn, wanted)
    stale: list[int] = []
    for first in range(0, len(wanted), _LOOKUP):
        part = wanted[first : first + _LOOKUP]
        marks = ",".join("?" for _ in part)
        for seq, heading in conn.execute(
            f"SELECT rowid, heading FROM chunks_fts WHERE rowid IN ({marks})", part
        ):
            if heading != fts_index_text(headings.get(seq, "")):
                stale.append(seq)
    if stale:
        texts = dict(
            conn.execute(
                f"SELECT seq, index_text FROM chunks WHERE seq IN ({','.join('?' for _ in stale)})",
                stale,
            ).fetchall()
        )
        remove(conn, stale)
        add(conn, [(seq, texts[seq]) for seq in stale])
    return len(stale)


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
