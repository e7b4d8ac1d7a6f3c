"""The benchmarks' one way to fill a library without parsing files: a source, documents of
``per_document`` chunks each, and the chunks of ``texts`` (checksum "h"), written in SQL."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import ConnectionPool, transaction


def seed_chunks(
    data_dir: Path, texts: list[str], per_document: int = 100, name: str = "Bench"
) -> tuple[ConnectionPool, sqlite3.Connection, str]:
    """(the database's pool, a connection of it, the new library's id)."""
    pool = open_database(data_dir)
    conn = pool.get()
    library_id = libraries.create(conn, name).id
    t = "2026-01-01"
    with transaction(conn):
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, created_at, updated_at)"
            " VALUES (?, ?, 'folder', '/nowhere', ?, ?)",
            ("a" * 32, library_id, t, t),
        )
        for d in range(0, len(texts), per_document):
            doc = uuid.UUID(int=d).hex
            conn.execute(
                "INSERT INTO documents (id, library_id, source_id, relative_path, title,"
                " parse_status, fulltext_status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, 'd', 'done', 'done', ?, ?)",
                (doc, library_id, "a" * 32, f"d{d}.md", t, t),
            )
            conn.executemany(
                "INSERT INTO chunks (id, library_id, document_id, ordinal, content, index_text,"
                " checksum, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'h', ?, ?)",
                [
                    (uuid.uuid4().hex, library_id, doc, i, text, text, t, t)
                    for i, text in enumerate(texts[d : d + per_document])
                ],
            )
    return pool, conn, library_id
