"""0022: conversations a person can manage, and per-library assistant instructions.

* ``conversations`` gains ``pinned``, ``title_is_default`` (off once renamed), ``deleted_at``
  (a soft delete, purged for good at the next start) and ``chat_model`` (the model of the newest
  answer).
* ``libraries`` gains ``assistant_instructions`` (told to the chat when the library is in scope).
* ``conversation_search`` is the full-text index over titles and message text, with the two
  columns the lexical channels use (``fts``: Snowball stems of the Latin words; ``cjk``: CJK
  bigrams), so Chinese and English are found the same way as in the libraries. Its rowid is
  ``conversation_search_rows.seq``, which names the conversation and the message (NULL for the
  title); deleting a row there (or the message or conversation, by cascade) drops the index row.
  ``detail = none``: a conversation filter needs only which rows hold every term, never
  positions, so the index is small and quick to read (the two columns hold disjoint scripts, so
  no column filter is needed either).
  Existing conversations are backfilled inside this migration's transaction.
"""

from __future__ import annotations

import sqlite3

BATCH = 1_000

_SCHEMA = (
    "ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE conversations ADD COLUMN title_is_default INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE conversations ADD COLUMN deleted_at TEXT",
    "ALTER TABLE conversations ADD COLUMN chat_model TEXT",
    "CREATE INDEX conversations_listing ON conversations (pinned DESC, updated_at DESC)",
    "ALTER TABLE libraries ADD COLUMN assistant_instructions TEXT NOT NULL DEFAULT ''",
    "CREATE TABLE conversation_search_rows ("
    " seq INTEGER PRIMARY KEY,"
    " conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,"
    " message_id TEXT REFERENCES messages (id) ON DELETE CASCADE)",
    "CREATE INDEX conversation_search_rows_conversation"
    " ON conversation_search_rows (conversation_id)",
    "CREATE INDEX conversation_search_rows_message ON conversation_search_rows (message_id)",
    "CREATE VIRTUAL TABLE conversation_search USING fts5"
    " (fts, cjk, tokenize = 'unicode61 remove_diacritics 0', detail = none)",
    "CREATE TRIGGER conversation_search_rows_delete AFTER DELETE ON conversation_search_rows"
    " BEGIN DELETE FROM conversation_search WHERE rowid = old.seq; END",
)


def _index(conn: sqlite3.Connection, rows: list[tuple[str, str | None, str]]) -> None:
    for conversation_id, message_id, text in rows:
        cur = conn.execute(
            "INSERT INTO conversation_search_rows (conversation_id, message_id) VALUES (?, ?)",
            (conversation_id, message_id),
        )
        conn.execute(
            "INSERT INTO conversation_search (rowid, fts, cjk)"
            " VALUES (?, kb_fts_text(?), kb_cjk_text(?))",
            (cur.lastrowid, text, text),
        )


def apply(conn: sqlite3.Connection) -> None:
    for statement in _SCHEMA:
        conn.execute(statement)
    _index(
        conn,
        [(row[0], None, row[1]) for row in conn.execute("SELECT id, title FROM conversations")],
    )
    last = ""
    while True:
        rows = conn.execute(
            "SELECT id, conversation_id, content FROM messages"
            " WHERE id > ? AND content != '' ORDER BY id LIMIT ?",
            (last, BATCH),
        ).fetchall()
        if not rows:
            break
        _index(conn, [(row[1], row[0], row[2]) for row in rows])
        last = rows[-1][0]
