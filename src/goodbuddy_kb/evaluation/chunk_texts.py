"""The evaluated library's own rows, read-only beside the running backend: each result's text
and each document's id by its corpus path."""

from __future__ import annotations

import sqlite3
from pathlib import Path


class ChunkTexts:
    """Each result's own text, read by chunk id from the evaluated library's database
    (read-only, beside the running backend). A result is judged by its own text: a context group
    merges the hits of neighbouring chunks of a document, and judging each hit by its group's
    text counted a paragraph next to the answer as holding it."""

    def __init__(self, db_path: Path) -> None:
        self._db_path = db_path
        self._conn: sqlite3.Connection | None = None

    def of(self, chunk_ids: list[str]) -> dict[str, str]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" for _ in chunk_ids)
        rows = (
            self._connection()
            .execute(f"SELECT id, content FROM chunks WHERE id IN ({marks})", chunk_ids)
            .fetchall()
        )
        return {cid: content for cid, content in rows}

    def documents(self, library_id: str, prefixes: dict[str, str]) -> dict[str, str]:
        """Each document of the library by its path in the dataset's corpus → its id."""
        rows = self._connection().execute(
            "SELECT id, source_id, relative_path FROM documents WHERE library_id = ?",
            (library_id,),
        )
        return {prefixes.get(source, "") + path: doc for doc, source, path in rows}

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = sqlite3.connect(f"file:{self._db_path}?mode=ro", uri=True)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
