"""The database side of context assembly: neighbours and parents of hit chunks."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.main_process.retrieval.context import Unit


class DbContextSource:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def neighbours(self, document_id: str, ordinal: int, count: int) -> list[Unit]:
        rows = self._conn.execute(
            "SELECT id, ordinal, content FROM chunks WHERE document_id = ? AND role != 'parent'"
            " AND enabled = 1 AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
            (document_id, ordinal - count, ordinal + count),
        ).fetchall()
        return [Unit(r["id"], r["ordinal"], r["content"]) for r in rows]

    def parent(self, parent_id: str) -> Unit | None:
        row = self._conn.execute(
            "SELECT id, ordinal, content FROM chunks WHERE id = ? AND enabled = 1", (parent_id,)
        ).fetchone()
        return Unit(row["id"], row["ordinal"], row["content"]) if row else None
