"""0024: documents list in the order a person expects ("Chapter 2" before "Chapter 10", case and
width folded): each document keeps its ``sort_key`` (``storage.documents.sort_key``), filled in
here for the documents already listed, and a library's page of documents is read off an index
of it instead of sorting every path on each page.
"""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.main_process.storage.documents import sort_key


def apply(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE documents ADD COLUMN sort_key TEXT NOT NULL DEFAULT ''")
    rows = conn.execute("SELECT id, relative_path FROM documents").fetchall()
    conn.executemany(
        "UPDATE documents SET sort_key = ? WHERE id = ?",
        [(sort_key(path), doc_id) for doc_id, path in rows],
    )
    conn.execute(
        "CREATE INDEX documents_library_order ON documents (library_id, sort_key, relative_path, id)"
    )
