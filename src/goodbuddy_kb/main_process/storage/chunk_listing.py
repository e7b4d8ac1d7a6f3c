"""Reading one document's chunks for maintenance: bounded pages in reading order (a parent
before its children), a search within the document, one chunk in full, and the document's
chunk counts. Writes live in :mod:`goodbuddy_kb.main_process.storage.chunks`."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from goodbuddy_kb.contracts.chunks import (
    CHUNK_PREVIEW_CHARACTERS,
    ChunkDocumentInfo,
    ChunkRole,
    ChunkSummary,
)

#: Reading order: a parent, then its children; standalone chunks by ordinal.
_ORDER = "COALESCE(p.ordinal, c.ordinal), c.role = 'child', c.ordinal, c.seq"


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _where(document_id: str, search: str | None, role: ChunkRole | None) -> tuple[str, list[Any]]:
    where, args = "c.document_id = ?", [document_id]
    if role is not None:
        where += " AND c.role = ?"
        args.append(role)
    if search:
        where += " AND (c.content LIKE ? ESCAPE '\\' OR c.heading_path LIKE ? ESCAPE '\\')"
        args += [_like(search), _like(search)]
    return where, args


def page(
    conn: sqlite3.Connection,
    document_id: str,
    offset: int,
    limit: int,
    search: str | None = None,
    role: ChunkRole | None = None,
) -> tuple[list[ChunkSummary], int]:
    """One page of the document's chunks in reading order, and how many match in all.

    Only keys are sorted (from the covering index when the document has no parents); the
    page's rows are read afterwards by their keys. A search reads the texts once."""
    where, args = _where(document_id, search, role)
    nested = (
        conn.execute(
            "SELECT 1 FROM chunks WHERE document_id = ? AND role = 'parent' LIMIT 1",
            (document_id,),
        ).fetchone()
        is not None
    )
    if nested:
        keys = f"SELECT c.seq FROM chunks c LEFT JOIN chunks p ON p.id = c.parent_chunk_id WHERE {where} ORDER BY {_ORDER}"
    else:  # only standalone chunks: the index is already in reading order
        keys = f"SELECT c.seq FROM chunks c WHERE {where} ORDER BY c.ordinal, c.seq"
    if search:
        matching = [r[0] for r in conn.execute(keys, args)]
        return summaries(conn, matching[offset : offset + limit]), len(matching)
    (total,) = conn.execute(f"SELECT count(*) FROM chunks c WHERE {where}", args).fetchone()
    seqs = [r[0] for r in conn.execute(f"{keys} LIMIT ? OFFSET ?", [*args, limit, offset])]
    return summaries(conn, seqs), int(total)


def summaries(conn: sqlite3.Connection, seqs: list[int]) -> list[ChunkSummary]:
    """The chunks with these keys, in the order given."""
    if not seqs:
        return []
    marks = ",".join("?" for _ in seqs)
    rows = {
        r["seq"]: r
        for r in conn.execute(
            "SELECT c.seq, c.id, c.ordinal, c.role, c.parent_chunk_id, p.ordinal AS parent_ordinal,"
            " c.heading_path, c.locator, length(c.content) AS characters, c.enabled,"
            " c.manually_edited, c.updated_at, substr(c.content, 1, ?) AS preview"
            " FROM chunks c LEFT JOIN chunks p ON p.id = c.parent_chunk_id"
            f" WHERE c.seq IN ({marks})",
            [CHUNK_PREVIEW_CHARACTERS + 1, *seqs],
        )
    }
    parents = [rows[s]["id"] for s in seqs if s in rows and rows[s]["role"] == "parent"]
    children: dict[str, int] = {}
    if parents:
        marks = ",".join("?" for _ in parents)
        children = dict(
            conn.execute(
                "SELECT parent_chunk_id, count(*) FROM chunks"
                f" WHERE parent_chunk_id IN ({marks}) GROUP BY parent_chunk_id",
                parents,
            ).fetchall()
        )
    return [_summary(rows[s], children.get(rows[s]["id"], 0)) for s in seqs if s in rows]


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    if len(text) > CHUNK_PREVIEW_CHARACTERS or len(flat) > CHUNK_PREVIEW_CHARACTERS:
        return flat[: CHUNK_PREVIEW_CHARACTERS - 1].rstrip() + "…"
    return flat


def _summary(row: sqlite3.Row, child_count: int) -> ChunkSummary:
    return ChunkSummary(
        id=row["id"],
        ordinal=row["ordinal"],
        role=row["role"],
        parent_chunk_id=row["parent_chunk_id"],
        parent_ordinal=row["parent_ordinal"],
        child_count=child_count,
        heading_path=[str(h) for h in json.loads(row["heading_path"] or "[]")],
        locator=json.loads(row["locator"] or "{}"),
        character_count=row["characters"],
        enabled=bool(row["enabled"]),
        manually_edited=bool(row["manually_edited"]),
        updated_at=row["updated_at"],
        preview=_preview(row["preview"] or ""),
    )


def summary_of(conn: sqlite3.Connection, seq: int) -> ChunkSummary:
    return summaries(conn, [seq])[0]


def document_info(conn: sqlite3.Connection, document_id: str) -> ChunkDocumentInfo:
    row = conn.execute(
        "SELECT id, title, relative_path FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    counts = conn.execute(
        "SELECT count(*), sum(enabled = 1 AND role != 'parent'), sum(manually_edited),"
        " sum(enabled = 0) FROM chunks WHERE document_id = ?",
        (document_id,),
    ).fetchone()
    (deleted,) = conn.execute(
        "SELECT count(*) FROM chunk_deletions WHERE document_id = ?", (document_id,)
    ).fetchone()
    (replaced,) = conn.execute(
        "SELECT count(*) FROM replaced_edits WHERE document_id = ?", (document_id,)
    ).fetchone()
    return ChunkDocumentInfo(
        document_id=row["id"],
        title=row["title"],
        path=row["relative_path"],
        total_chunks=counts[0],
        retrievable_chunks=counts[1] or 0,
        edited_chunks=counts[2] or 0,
        disabled_chunks=counts[3] or 0,
        deleted_chunks=deleted,
        replaced_edits=replaced,
    )
