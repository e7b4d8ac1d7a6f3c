"""0004: the CJK bigram table, backfilled from existing chunks in bounded batches.

Runs inside the migration's transaction: if any batch fails, the table and every row written
so far roll back, and the full-text index of 0003 keeps working.
"""

from __future__ import annotations

import sqlite3

BATCH = 1_000


def apply(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE VIRTUAL TABLE chunks_cjk USING fts5 (text, tokenize = 'unicode61 remove_diacritics 0')"
    )
    conn.execute(
        "CREATE TRIGGER chunks_cjk_delete AFTER DELETE ON chunks BEGIN"
        " DELETE FROM chunks_cjk WHERE rowid = old.seq; END"
    )
    last = 0
    while True:
        rows = conn.execute(
            "SELECT seq, index_text FROM chunks WHERE seq > ? AND enabled = 1 AND role != 'parent'"
            " ORDER BY seq LIMIT ?",
            (last, BATCH),
        ).fetchall()
        if not rows:
            break
        conn.executemany(
            "INSERT INTO chunks_cjk (rowid, text) VALUES (?, kb_cjk_text(?))",
            [(row[0], row[1]) for row in rows],
        )
        last = rows[-1][0]
