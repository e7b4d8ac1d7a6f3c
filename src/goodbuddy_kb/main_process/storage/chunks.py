"""The chunks table: replacing a document's chunks atomically, keeping unchanged ones.

Every change goes through :mod:`goodbuddy_kb.main_process.lexical.index` in the same
transaction as the chunk rows, so full-text and CJK never disagree with the chunks.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.lexical import index as lexical_index


@dataclass(frozen=True)
class ReplaceStats:
    kept: int
    added: int
    removed: int


def replace_document_chunks(
    conn: sqlite3.Connection, library_id: str, document_id: str, drafts: list[ChunkDraft]
) -> ReplaceStats:
    """Make the document's chunks exactly ``drafts``. Call inside a transaction.

    A chunk whose id and checksum are unchanged keeps its row (and so its vectors and citations);
    only its ordinal and locator are refreshed.
    """
    existing = {
        row["id"]: (row["seq"], row["checksum"], row["role"], row["enabled"])
        for row in conn.execute(
            "SELECT id, seq, checksum, role, enabled FROM chunks WHERE document_id = ?",
            (document_id,),
        )
    }
    wanted = {d.id: d for d in drafts}
    stale = [
        cid
        for cid, (_seq, checksum, _r, _e) in existing.items()
        if cid not in wanted or wanted[cid].checksum != checksum
    ]
    # (the delete triggers drop the stale chunks' index rows) children first: they reference parents
    conn.executemany(
        "DELETE FROM chunks WHERE id = ?",
        [(cid,) for cid in sorted(stale, key=lambda c: existing[c][2] != "child")],
    )
    stamp = now_iso()
    added: list[tuple[int, str]] = []
    kept = 0
    for draft in sorted(drafts, key=lambda d: d.role == "child"):
        if draft.id in existing and draft.id not in stale:
            kept += 1
            conn.execute(
                "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?, parent_chunk_id = ?"
                " WHERE id = ?",
                (
                    draft.ordinal,
                    json.dumps(draft.locator, ensure_ascii=False),
                    draft.heading,
                    json.dumps(list(draft.heading_path), ensure_ascii=False),
                    draft.parent_id,
                    draft.id,
                ),
            )
            continue
        cursor = conn.execute(
            "INSERT INTO chunks (id, library_id, document_id, ordinal, role, parent_chunk_id, heading,"
            " heading_path, locator, block_type, content, index_text, checksum, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                draft.id,
                library_id,
                document_id,
                draft.ordinal,
                draft.role,
                draft.parent_id,
                draft.heading,
                json.dumps(list(draft.heading_path), ensure_ascii=False),
                json.dumps(draft.locator, ensure_ascii=False),
                draft.block_type,
                draft.content,
                draft.index_text,
                draft.checksum,
                stamp,
                stamp,
            ),
        )
        if draft.role != "parent":
            assert cursor.lastrowid is not None
            added.append((cursor.lastrowid, draft.index_text))
    lexical_index.add(conn, added)
    return ReplaceStats(kept=kept, added=len(drafts) - kept, removed=len(stale))


def delete_document_chunks(conn: sqlite3.Connection, document_id: str) -> None:
    conn.execute("DELETE FROM chunks WHERE document_id = ? AND role = 'child'", (document_id,))
    conn.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
