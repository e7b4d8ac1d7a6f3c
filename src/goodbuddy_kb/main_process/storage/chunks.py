"""The chunks table: replacing a document's chunks atomically, keeping unchanged ones and a
person's work on them.

Every change goes through :mod:`goodbuddy_kb.main_process.lexical.index` in the same
transaction as the chunk rows, so full-text and CJK never disagree with the chunks (a deleted
chunk's index rows go with it through the delete triggers).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.chunking.carryover import Tally, carry_over
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.lexical import index as lexical_index
from goodbuddy_kb.main_process.storage import graph_rows, manual_work
from goodbuddy_kb.main_process.storage.db import transaction


@dataclass(frozen=True)
class ReplaceStats:
    kept: int
    added: int
    updated: int
    removed: int
    #: A person's chunk work the new generation kept, and what it dropped.
    carried: Tally = field(default_factory=Tally)
    lost: Tally = field(default_factory=Tally)


def _meta(draft: ChunkDraft) -> tuple[object, ...]:
    return (
        draft.ordinal,
        json.dumps(draft.locator, ensure_ascii=False),
        draft.heading,
        json.dumps(list(draft.heading_path), ensure_ascii=False),
        draft.parent_id,
        draft.block_type,
    )


def replace_document_chunks(
    conn: sqlite3.Connection,
    library_id: str,
    document_id: str,
    drafts: list[ChunkDraft],
    manual: manual_work.ManualMode = "carry",
) -> ReplaceStats:
    """Make the document's chunks ``drafts`` with its manual work carried over
    (:mod:`chunking.carryover`: edits and disabled chunks on the same text, disabled text inside
    one new chunk, deleted text left out), as ``manual`` says (``manual_work.ManualMode``: with
    "keep" it raises :class:`manual_work.ManualWorkWouldBeLost` instead of dropping work it
    cannot keep). Call inside a transaction.

    A chunk whose id and checksum are unchanged keeps its row (so its vectors and citations);
    only its ordinal, locator, role, parent link and enabled state are refreshed. Parents are
    written before their children and stale rows are deleted last, so no kept child is lost to
    a cascade.
    """
    work = manual_work.state(conn, document_id)
    plan = carry_over(work, drafts)
    if manual == "keep" and plan.lost.total:
        raise manual_work.ManualWorkWouldBeLost(plan)
    manual_work.keep_replaced(conn, document_id, work, {d.id for d in plan.drafts})
    # chunks made with settings the library changed to: it no longer holds one build alone
    conn.execute(
        "UPDATE libraries SET built_chunking = NULL WHERE id = ? AND settings_pending_rebuild = 1"
        " AND built_chunking IS NOT NULL",
        (library_id,),
    )
    existing = {
        row["id"]: row
        for row in conn.execute(
            "SELECT id, seq, checksum, role, enabled, manually_edited, content, index_text"
            " FROM chunks WHERE document_id = ?",
            (document_id,),
        )
    }
    wanted = {d.id for d in plan.drafts}
    writer = _Writer(conn, library_id, document_id)
    for draft in sorted(plan.drafts, key=lambda d: d.role == "child"):
        writer.write(draft, existing.get(draft.id))
    stale = sorted(
        (cid for cid in existing if cid not in wanted),
        key=lambda c: existing[c]["role"] != "child",
    )
    conn.executemany("DELETE FROM chunks WHERE id = ?", [(cid,) for cid in stale])
    manual_work.keep_deletions(conn, document_id, plan.deletions)
    lexical_index.remove(conn, writer.unindex)
    lexical_index.add(conn, writer.reindex)
    lexical_index.refresh_headings(conn, writer.kept)
    return ReplaceStats(removed=len(stale), carried=plan.carried, lost=plan.lost, **writer.counts)


class _Writer:
    """Writes one draft over its old row (or as a new one), collecting index work."""

    def __init__(self, conn: sqlite3.Connection, library_id: str, document_id: str) -> None:
        self.conn, self.library_id, self.document_id = conn, library_id, document_id
        self.stamp = now_iso()
        self.reindex: list[tuple[int, str]] = []
        self.unindex: list[int] = []
        self.kept: list[int] = []
        self.counts = {"kept": 0, "added": 0, "updated": 0}

    def write(self, draft: ChunkDraft, old: sqlite3.Row | None) -> None:
        if old is None:
            self._insert(draft)
            return
        retrievable = draft.role != "parent"
        was_indexed = old["role"] != "parent" and bool(old["enabled"])
        if old["checksum"] == draft.checksum:
            self.counts["kept"] += 1
            self.conn.execute(
                "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?,"
                " parent_chunk_id = ?, block_type = ?, role = ?, enabled = ? WHERE id = ?",
                (*_meta(draft), draft.role, int(draft.enabled), draft.id),
            )
            if was_indexed and not (retrievable and draft.enabled):
                self.unindex.append(old["seq"])
            elif retrievable and draft.enabled and not was_indexed:
                self.reindex.append((old["seq"], draft.index_text))
            elif was_indexed:
                self.kept.append(old["seq"])
            return
        self.counts["updated"] += 1
        self.conn.execute(
            "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?,"
            " parent_chunk_id = ?, block_type = ?, role = ?, content = ?, index_text = ?,"
            " checksum = ?, manually_edited = ?, enabled = ?, updated_at = ? WHERE id = ?",
            (
                *_meta(draft),
                draft.role,
                draft.content,
                draft.index_text,
                draft.checksum,
                old["manually_edited"],
                int(draft.enabled),
                self.stamp,
                draft.id,
            ),
        )
        if was_indexed:
            self.unindex.append(old["seq"])
        if retrievable and draft.enabled:
            self.reindex.append((old["seq"], draft.index_text))

    def _insert(self, draft: ChunkDraft) -> None:
        self.counts["added"] += 1
        cursor = self.conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, locator, heading,"
            " heading_path, parent_chunk_id, block_type, role, content, index_text, checksum,"
            " enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?)",
            (
                draft.id,
                self.library_id,
                self.document_id,
                *_meta(draft),
                draft.role,
                draft.content,
                draft.index_text,
                draft.checksum,
                int(draft.enabled),
                self.stamp,
                self.stamp,
            ),
        )
        if draft.role != "parent" and draft.enabled and cursor.lastrowid is not None:
            self.reindex.append((cursor.lastrowid, draft.index_text))


def delete_document_chunks(conn: sqlite3.Connection, document_id: str) -> None:
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))


def set_enabled(conn: sqlite3.Connection, chunk_id: str, enabled: bool) -> None:
    """Enable or disable a chunk in its own transaction (see :func:`set_enabled_in`)."""
    with transaction(conn):
        set_enabled_in(conn, chunk_id, enabled)


def set_enabled_in(conn: sqlite3.Connection, chunk_id: str, enabled: bool) -> bool:
    """Inside the caller's transaction: enable or disable a chunk; a retrievable one gains or
    loses its full-text and CJK rows with it (its vector dies through the 0005 trigger).
    Returns whether anything changed."""
    row = conn.execute(
        "SELECT seq, role, enabled, index_text FROM chunks WHERE id = ?", (chunk_id,)
    ).fetchone()
    if row is None or bool(row["enabled"]) == enabled:
        return False
    conn.execute(
        "UPDATE chunks SET enabled = ?, updated_at = ? WHERE id = ?",
        (int(enabled), now_iso(), chunk_id),
    )
    if row["role"] != "parent":
        if enabled:
            lexical_index.add(conn, [(row["seq"], row["index_text"])])
        else:
            lexical_index.remove(conn, [row["seq"]])
    return True


def edit_content(
    conn: sqlite3.Connection, chunk_id: str, content: str, index_text: str, checksum: str
) -> None:
    """Replace a chunk's text in its own transaction (see :func:`edit_content_in`)."""
    with transaction(conn):
        edit_content_in(conn, chunk_id, content, index_text, checksum)


def edit_content_in(
    conn: sqlite3.Connection, chunk_id: str, content: str, index_text: str, checksum: str
) -> bool:
    """Inside the caller's transaction: replace a chunk's text as a manual edit; an enabled
    retrievable chunk's index rows are rewritten with it, and its old vector dies at once
    (the 0005 trigger on the checksum). Returns whether anything changed."""
    row = conn.execute(
        "SELECT seq, role, enabled, content, checksum FROM chunks WHERE id = ?", (chunk_id,)
    ).fetchone()
    if row is None or (row["content"] == content and row["checksum"] == checksum):
        return False
    conn.execute(
        "UPDATE chunks SET content = ?, index_text = ?, checksum = ?, manually_edited = 1,"
        " updated_at = ? WHERE id = ?",
        (content, index_text, checksum, now_iso(), chunk_id),
    )
    if row["role"] != "parent" and row["enabled"]:
        lexical_index.remove(conn, [row["seq"]])
        lexical_index.add(conn, [(row["seq"], index_text)])
    return True


def delete_in(conn: sqlite3.Connection, chunk_id: str) -> int:
    """Inside the caller's transaction: delete one chunk. Its full-text, CJK and vector rows go
    through the delete triggers; a parent's children first become standalone chunks (they keep
    their text, indexes and vectors, and lose only the parent's context). Returns how many
    children were detached."""
    detached = conn.execute(
        "UPDATE chunks SET role = 'standalone', parent_chunk_id = NULL, updated_at = ?"
        " WHERE parent_chunk_id = ?",
        (now_iso(), chunk_id),
    ).rowcount
    row = conn.execute("SELECT library_id FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
    conn.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))
    if row is not None:
        graph_rows.prune(conn, row[0])  # what only this chunk's text held up
    return int(detached)
