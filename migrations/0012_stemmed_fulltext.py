"""0012: the full-text table holds Snowball English stems, and both lexical tables gain a
``heading`` column (document title and heading path) so headings take part in matching without
ever entering a chunk's content.

Both tables are recreated and backfilled from the chunks in bounded batches inside the
migration's transaction: if any batch fails, everything rolls back and the tables of 0003/0004
keep serving as they were.
"""

from __future__ import annotations

import sqlite3

BATCH = 1_000

_HEADING = "d.title || ' ' || coalesce((SELECT group_concat(value, ' ') FROM json_each(c.heading_path)), '')"


def apply(conn: sqlite3.Connection) -> None:
    for table, tokenizer, text_fn in (
        ("chunks_fts", "unicode61 remove_diacritics 2", "kb_fts_text"),
        ("chunks_cjk", "unicode61 remove_diacritics 0", "kb_cjk_text"),
    ):
        conn.execute(f"DROP TRIGGER IF EXISTS {table}_delete")
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(
            f"CREATE VIRTUAL TABLE {table} USING fts5 (text, heading, tokenize = '{tokenizer}')"
        )
        conn.execute(
            f"CREATE TRIGGER {table}_delete AFTER DELETE ON chunks BEGIN"
            f" DELETE FROM {table} WHERE rowid = old.seq; END"
        )
        last = 0
        while True:
            rows = conn.execute(
                f"SELECT c.seq, c.index_text, {_HEADING} FROM chunks c"
                " JOIN documents d ON d.id = c.document_id"
                " WHERE c.seq > ? AND c.enabled = 1 AND c.role != 'parent' ORDER BY c.seq LIMIT ?",
                (last, BATCH),
            ).fetchall()
            if not rows:
                break
            conn.executemany(
                f"INSERT INTO {table} (rowid, text, heading) VALUES (?, {text_fn}(?), {text_fn}(?))",
                [(row[0], row[1], row[2]) for row in rows],
            )
            last = rows[-1][0]
