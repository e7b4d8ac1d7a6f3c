"""The chunks table: replacing a document's chunks atomically, keeping unchanged ones.

Every change goes through :mod:`goodbuddy_kb.main_process.lexical.index` in the same
transaction as the chunk rows, so full-text and CJK never disagree with the chunks (a deleted
chunk's index rows go with it through the delete triggers).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.lexical import index as lexical_index
from goodbuddy_kb.main_process.storage.db import transaction


@dataclass(frozen=True)
class ReplaceStats:
    kept: int
    added: int
    updated: int
    removed: int


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
    conn: sqlite3.Connection, library_id: str, document_id: str, drafts: list[ChunkDraft]
) -> ReplaceStats:
    """Make the document's chunks exactly ``drafts``. Call inside a transaction.

    A chunk whose id and checksum are unchanged keeps its row (so its vectors and citations);
    only its ordinal, locator and parent link are refreshed. Parents are written before their
    children and stale rows are deleted last, so no kept child is lost to a cascade.
    """
    existing = {
        row["id"]: (row["seq"], row["checksum"], row["role"], bool(row["enabled"]))
        for row in conn.execute(
            "SELECT id, seq, checksum, role, enabled FROM chunks WHERE document_id = ?",
            (document_id,),
        )
    }
    wanted = {d.id for d in drafts}
    stamp = now_iso()
    reindex: list[tuple[int, str]] = []
    counts = {"kept": 0, "added": 0, "updated": 0}
    for draft in sorted(drafts, key=lambda d: d.role == "child"):
        old = existing.get(draft.id)
        if old is not None and old[1] == draft.checksum:
            counts["kept"] += 1
            conn.execute(
                "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?,"
                " parent_chunk_id = ?, block_type = ? WHERE id = ?",
                (*_meta(draft), draft.id),
            )
            continue
        if old is not None:
            counts["updated"] += 1
            conn.execute(
                "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?,"
                " parent_chunk_id = ?, block_type = ?, content = ?, index_text = ?, checksum = ?,"
                " manually_edited = 0, updated_at = ? WHERE id = ?",
                (*_meta(draft), draft.content, draft.index_text, draft.checksum, stamp, draft.id),
            )
            seq = old[0]
            lexical_index.remove(conn, [seq])
            if draft.role != "parent" and old[3]:
                reindex.append((seq, draft.index_text))
            continue
        counts["added"] += 1
        cursor = conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, locator, heading, heading_path,"
            " parent_chunk_id, block_type, role, content, index_text, checksum, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                draft.id,
                library_id,
                document_id,
                *_meta(draft),
                draft.role,
                draft.content,
                draft.index_text,
                draft.checksum,
                stamp,
                stamp,
            ),
        )
        if draft.role != "parent" and cursor.lastrowid is not None:
            reindex.append((cursor.lastrowid, draft.index_text))
    stale = sorted(
        (cid for cid in existing if cid not in wanted), key=lambda c: existing[c][2] != "child"
    )
    conn.executemany("DELETE FROM chunks WHERE id = ?", [(cid,) for cid in stale])
    lexical_index.add(conn, reindex)
    return ReplaceStats(removed=len(stale), **counts)


def delete_document_chunks(conn: sqlite3.Connection, document_id: str) -> None:
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))


def set_enabled(conn: sqlite3.Connection, chunk_id: str, enabled: bool) -> None:
    """Enable or disable a retrievable chunk; its index rows follow in the same transaction."""
    with transaction(conn):
        row = conn.execute(
            "SELECT seq, role, enabled, index_text FROM chunks WHERE id = ?", (chunk_id,)
        ).fetchone()
        if row is None or bool(row["enabled"]) == enabled:
            return
        conn.execute(
            "UPDATE chunks SET enabled = ?, updated_at = ? WHERE id = ?",
            (int(enabled), now_iso(), chunk_id),
        )
        if row["role"] == "parent":
            return
        if enabled:
            lexical_index.add(conn, [(row["seq"], row["index_text"])])
        else:
            lexical_index.remove(conn, [row["seq"]])


def edit_content(
    conn: sqlite3.Connection, chunk_id: str, content: str, index_text: str, checksum: str
) -> None:
    """Replace a chunk's text (a manual edit); the index rows are rebuilt in the same transaction."""
    with transaction(conn):
        row = conn.execute(
            "SELECT seq, role, enabled FROM chunks WHERE id = ?", (chunk_id,)
        ).fetchone()
        if row is None:
            return
        conn.execute(
            "UPDATE chunks SET content = ?, index_text = ?, checksum = ?, manually_edited = 1, updated_at = ?"
            " WHERE id = ?",
            (content, index_text, checksum, now_iso(), chunk_id),
        )
        if row["role"] != "parent" and row["enabled"]:
            lexical_index.remove(conn, [row["seq"]])
            lexical_index.add(conn, [(row["seq"], index_text)])
