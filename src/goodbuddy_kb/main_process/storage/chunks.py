"""The chunks table: replacing a document's chunks atomically, keeping unchanged ones.

Every change goes through :mod:`goodbuddy_kb.main_process.lexical.index` in the same
transaction as the chunk rows, so full-text and CJK never disagree with the chunks (a deleted
chunk's index rows go with it through the delete triggers).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace

from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.chunking.drafts import canonical_index_text, checksum
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


def _with_edits(drafts: list[ChunkDraft], edits: dict[str, str]) -> list[ChunkDraft]:
    out = []
    for draft in drafts:
        content = edits.get(draft.id)
        if content is None:
            out.append(draft)
            continue
        index_text = canonical_index_text(content, draft.prefix)
        out.append(
            replace(draft, content=content, index_text=index_text, checksum=checksum(index_text))
        )
    return out


def keep_edits(
    conn: sqlite3.Connection, document_id: str, drafts: list[ChunkDraft]
) -> list[ChunkDraft]:
    """The drafts as :func:`replace_document_chunks` will store them: a manually edited chunk
    whose source text did not change (same stable id) keeps its edited content, with the
    draft's contextual prefix. Plan vectors from these, not from the chunker's drafts."""
    edits = dict(
        conn.execute(
            "SELECT id, content FROM chunks WHERE document_id = ? AND manually_edited = 1",
            (document_id,),
        ).fetchall()
    )
    return _with_edits(drafts, edits) if edits else drafts


def replace_document_chunks(
    conn: sqlite3.Connection, library_id: str, document_id: str, drafts: list[ChunkDraft]
) -> ReplaceStats:
    """Make the document's chunks exactly ``drafts``. Call inside a transaction.

    A chunk whose id and checksum are unchanged keeps its row (so its vectors and citations);
    only its ordinal, locator, role and parent link are refreshed. A manually edited chunk whose
    source text did not change (same stable id) keeps its edit; only its contextual prefix
    follows the document's current title and headings. Parents are written before their
    children and stale rows are deleted last, so no kept child is lost to a cascade.
    """
    existing = {
        row["id"]: row
        for row in conn.execute(
            "SELECT id, seq, checksum, role, enabled, manually_edited, content, index_text"
            " FROM chunks WHERE document_id = ?",
            (document_id,),
        )
    }
    wanted = {d.id for d in drafts}
    stamp = now_iso()
    reindex: list[tuple[int, str]] = []
    kept: list[int] = []
    counts = {"kept": 0, "added": 0, "updated": 0}
    edits = {cid: row["content"] for cid, row in existing.items() if row["manually_edited"]}
    for draft in sorted(_with_edits(drafts, edits), key=lambda d: d.role == "child"):
        old = existing.get(draft.id)
        if old is not None and old["checksum"] == draft.checksum:
            counts["kept"] += 1
            if draft.role != "parent" and old[3]:
                kept.append(old[0])
            conn.execute(
                "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?,"
                " parent_chunk_id = ?, block_type = ?, role = ? WHERE id = ?",
                (*_meta(draft), draft.role, draft.id),
            )
            continue
        if old is not None:
            counts["updated"] += 1
            conn.execute(
                "UPDATE chunks SET ordinal = ?, locator = ?, heading = ?, heading_path = ?,"
                " parent_chunk_id = ?, block_type = ?, role = ?, content = ?, index_text = ?,"
                " checksum = ?, manually_edited = ?, updated_at = ? WHERE id = ?",
                (
                    *_meta(draft),
                    draft.role,
                    draft.content,
                    draft.index_text,
                    draft.checksum,
                    old["manually_edited"],
                    stamp,
                    draft.id,
                ),
            )
            seq = old["seq"]
            if old["role"] != "parent" and old["enabled"]:
                lexical_index.remove(conn, [seq])
            if draft.role != "parent" and old["enabled"]:
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
        (cid for cid in existing if cid not in wanted),
        key=lambda c: existing[c]["role"] != "child",
    )
    conn.executemany("DELETE FROM chunks WHERE id = ?", [(cid,) for cid in stale])
    lexical_index.add(conn, reindex)
    lexical_index.refresh_headings(conn, kept)
    return ReplaceStats(removed=len(stale), **counts)


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
    conn.execute("DELETE FROM chunks WHERE id = ?", (chunk_id,))
    return int(detached)
