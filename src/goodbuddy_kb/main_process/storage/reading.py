"""A document's parse status while its file is being read and parsed (PRD §7.6: "running").

Sync marks a document ``running`` before it parses the file and the document's own store
(``documents.store_parsed`` / ``store_failed``) ends it. A new document appears at once, with
no checksum (so a read cut off is read again); a document already serving keeps its chunks and
its checksum meanwhile. A read cut off (cancel, error) puts back what was there; at start,
a crash's leftovers become ``done`` where a generation serves and ``pending`` otherwise.
"""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.storage.documents import document_id
from goodbuddy_kb.main_process.storage.sort_keys import sort_key


def mark_reading(
    conn: sqlite3.Connection,
    library_id: str,
    source_id: str,
    relative_path: str,
    title: str,
    vectors_expected: bool = False,
) -> str:
    """Mark the document at ``relative_path`` as being read (a new one is listed with it, its
    vectors "pending" when they will follow, so the row never reads "off" meanwhile)."""
    doc_id = document_id(source_id, relative_path)
    stamp = now_iso()
    with transaction(conn):
        conn.execute(
            "INSERT INTO documents (id, library_id, source_id, relative_path, sort_key, title,"
            " checksum, parse_status, vector_status, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, NULL, 'running', ?, ?, ?)"
            " ON CONFLICT (id) DO UPDATE SET parse_status = 'running'",
            (
                doc_id, library_id, source_id, relative_path, sort_key(relative_path), title,
                "pending" if vectors_expected else "disabled", stamp, stamp,
            ),
        )  # fmt: skip
    return doc_id


def reading_cut_off(conn: sqlite3.Connection, doc_id: str, previous: str | None) -> None:
    """After the read: a document still ``running`` did not finish — it gets the status it had
    back, and a new one leaves the list again (the next sync reads it)."""
    with transaction(conn):
        if previous is None:
            conn.execute(
                "DELETE FROM documents WHERE id = ? AND parse_status = 'running'"
                " AND NOT EXISTS (SELECT 1 FROM chunks WHERE document_id = ?)",
                (doc_id, doc_id),
            )
        else:
            conn.execute(
                "UPDATE documents SET parse_status = ? WHERE id = ? AND parse_status = 'running'",
                (previous, doc_id),
            )


def recover_reading(conn: sqlite3.Connection) -> int:
    """At start: documents a crash left being read. Returns how many were corrected."""
    with transaction(conn):
        cursor = conn.execute(
            "UPDATE documents SET parse_status = CASE WHEN EXISTS (SELECT 1 FROM chunks c"
            " WHERE c.document_id = documents.id) THEN 'done' ELSE 'pending' END"
            " WHERE parse_status = 'running'"
        )
    return cursor.rowcount
