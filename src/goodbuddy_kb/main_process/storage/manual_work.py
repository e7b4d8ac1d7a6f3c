"""A person's chunk work as stored: edited and disabled chunks are flags on their rows
(``chunks.manually_edited``, ``chunks.enabled``), deleted ones are remembered in
``chunk_deletions`` (migration 0020) with their text, so the next chunking can be matched
against all three (:mod:`chunking.carryover`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal

from goodbuddy_kb.contracts.chunks import MAX_REPLACED_EDITS
from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.chunking.carryover import (
    CarryOver,
    ManualChunk,
    ManualState,
    Tally,
    carry_over,
)
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage.db import transaction

#: What a new generation of a document's chunks does with its manual work: ``carry`` what the
#: new chunking allows and accept losing the rest (a re-sync of a changed file, a rebuild told
#: to discard), or ``keep`` the same but refuse (``ManualWorkWouldBeLost``) where some would be
#: lost (a rebuild that skips such documents).
ManualMode = Literal["carry", "keep"]


class ManualWorkWouldBeLost(Exception):
    """A new generation would drop manual work its caller asked to keep (the transaction that
    was replacing the document's chunks rolls back)."""

    def __init__(self, plan: CarryOver) -> None:
        super().__init__("the new chunking cannot keep this document's manual chunk work")
        self.plan = plan


def state(conn: sqlite3.Connection, document_id: str) -> ManualState:
    """The document's edited, disabled and deleted chunks."""
    rows = conn.execute(
        "SELECT id, role, content, manually_edited, enabled FROM chunks"
        " WHERE document_id = ? AND (manually_edited = 1 OR enabled = 0)",
        (document_id,),
    ).fetchall()
    deleted = conn.execute(
        "SELECT chunk_id, role, content FROM chunk_deletions WHERE document_id = ?"
        " ORDER BY deleted_at, chunk_id",
        (document_id,),
    ).fetchall()
    return ManualState(
        edited={r["id"]: r["content"] for r in rows if r["manually_edited"]},
        disabled=tuple(
            ManualChunk(r["id"], r["role"], r["content"]) for r in rows if not r["enabled"]
        ),
        deleted=tuple(ManualChunk(*r) for r in deleted),
    )


def plan(conn: sqlite3.Connection, document_id: str, drafts: list[ChunkDraft]) -> CarryOver:
    """What storing ``drafts`` as the document's generation keeps of its manual work."""
    return carry_over(state(conn, document_id), drafts)


def record_deletion(conn: sqlite3.Connection, row: sqlite3.Row) -> None:
    """Inside the deleting transaction: remember a chunk a person deleted (id, role, text)."""
    conn.execute(
        "INSERT OR REPLACE INTO chunk_deletions (document_id, chunk_id, role, content, deleted_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (row["document_id"], row["id"], row["role"], row["content"], now_iso()),
    )


def keep_deletions(conn: sqlite3.Connection, document_id: str, kept: list[ManualChunk]) -> None:
    """Inside the transaction that replaced the document's chunks: the deletions that still
    hold are exactly ``kept`` (the others were discarded or their text is gone)."""
    conn.execute("DELETE FROM chunk_deletions WHERE document_id = ?", (document_id,))
    stamp = now_iso()
    conn.executemany(
        "INSERT OR REPLACE INTO chunk_deletions (document_id, chunk_id, role, content, deleted_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(document_id, c.id, c.role, c.content, stamp) for c in kept],
    )


@dataclass(frozen=True)
class DocumentWork:
    document_id: str
    path: str
    counts: Tally


def by_document(
    conn: sqlite3.Connection, library_id: str, document_id: str | None = None
) -> list[DocumentWork]:
    """Documents of the library (or just ``document_id``) holding manual work, in the order a
    library rebuild walks them, with how many chunks are edited, disabled and deleted. Read
    from the 0009 covering index, never from chunk texts."""
    only = "" if document_id is None else " AND d.id = :doc"
    rows = conn.execute(
        "WITH work AS ("
        " SELECT document_id, sum(manually_edited) AS edited, sum(enabled = 0) AS disabled,"
        "  0 AS deleted FROM chunks WHERE library_id = :lib AND (manually_edited = 1"
        "  OR enabled = 0) GROUP BY document_id"
        " UNION ALL SELECT x.document_id, 0, 0, count(*) FROM chunk_deletions x"
        "  JOIN documents dd ON dd.id = x.document_id WHERE dd.library_id = :lib"
        "  GROUP BY x.document_id)"
        " SELECT d.id, d.relative_path, sum(w.edited), sum(w.disabled), sum(w.deleted)"
        " FROM work w JOIN documents d ON d.id = w.document_id"
        " JOIN sources s ON s.id = d.source_id WHERE d.library_id = :lib"
        + only
        + " GROUP BY d.id ORDER BY s.created_at, s.id, d.relative_path, d.id",
        {"lib": library_id, "doc": document_id},
    ).fetchall()
    return [DocumentWork(r[0], r[1], Tally(int(r[2]), int(r[3]), int(r[4]))) for r in rows]


def keep_replaced(
    conn: sqlite3.Connection, document_id: str, work: ManualState, kept_ids: set[str]
) -> None:
    """Inside the transaction that replaced the document's chunks: the person's edits whose
    chunks the new text no longer has are kept (``replaced_edits``, migration 0027) until
    dismissed."""
    lost = [(cid, text) for cid, text in work.edited.items() if cid not in kept_ids]
    if not lost:
        return
    stamp = now_iso()
    conn.executemany(
        "INSERT INTO replaced_edits (document_id, chunk_id, content, replaced_at)"
        " VALUES (?, ?, ?, ?)",
        [(document_id, cid, text, stamp) for cid, text in lost],
    )
    conn.execute(
        "DELETE FROM replaced_edits WHERE document_id = ? AND id NOT IN (SELECT id FROM"
        " replaced_edits WHERE document_id = ? ORDER BY id DESC LIMIT ?)",
        (document_id, document_id, MAX_REPLACED_EDITS),
    )


def replaced(conn: sqlite3.Connection, document_id: str) -> list[tuple[str, str, str]]:
    """The document's replaced edits, oldest first: (chunk id, the edited text, when)."""
    rows = conn.execute(
        "SELECT chunk_id, content, replaced_at FROM replaced_edits WHERE document_id = ?"
        " ORDER BY id",
        (document_id,),
    ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def dismiss_replaced(conn: sqlite3.Connection, document_id: str) -> int:
    """Forget the document's replaced edits (the person took what they needed)."""
    with transaction(conn):
        cursor = conn.execute("DELETE FROM replaced_edits WHERE document_id = ?", (document_id,))
    return cursor.rowcount
