"""Re-embedding one document after a chunk edit or re-enable, with the rebuild jobs' vector
plan (:mod:`rebuild.generation`): only the chunks without a live vector of their current text
are embedded and appended to the library's current version. A provider failure leaves the edit
and its full-text rows serving and marks the document "vector failed" (PRD §12)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from goodbuddy_kb.contracts.chunks import VectorFollowUp
from goodbuddy_kb.contracts.errors import CancelledError, KbError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.rebuild.generation import (
    INCOMPATIBLE,
    VectorPlan,
    embed_plan,
    plan_vectors,
    write_vectors,
)
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import store

FollowUp = VectorFollowUp


def _missing(conn: sqlite3.Connection, document_id: str, version_id: str) -> int:
    (n,) = conn.execute(
        "SELECT count(*) FROM chunks c WHERE c.document_id = ? AND c.enabled = 1"
        " AND c.role != 'parent' AND NOT EXISTS (SELECT 1 FROM vector_rows v WHERE"
        " v.version_id = ? AND v.chunk_seq = c.seq AND v.alive = 1 AND v.checksum = c.checksum)",
        (document_id, version_id),
    ).fetchone()
    return int(n)


def follow_up(
    conn: sqlite3.Connection,
    library_id: str,
    document_id: str,
    provider: EmbeddingProvider | None,
) -> FollowUp:
    """After a change to the document's chunks: what its vectors need, with its vector status
    set to match ("pending" while a re-embedding is due, "done" when nothing is missing)."""
    if provider is None:
        return "no_model"
    current = store.current(conn, library_id)
    if current is None:
        return "waiting_for_index"
    if provider.variant_for(current.fingerprint, current.dims) is None:
        return "incompatible"
    missing = _missing(conn, document_id, current.id)
    with transaction(conn):
        conn.execute(
            "UPDATE documents SET vector_status = ?, vector_error = NULL WHERE id = ?"
            " AND parse_status = 'done'",
            ("pending" if missing else "done", document_id),
        )
    return "queued" if missing else "not_needed"


def _draft(row: sqlite3.Row) -> ChunkDraft:
    return ChunkDraft(
        id=row["id"],
        ordinal=row["ordinal"],
        role=row["role"],
        parent_id=row["parent_chunk_id"],
        heading=row["heading"],
        heading_path=tuple(json.loads(row["heading_path"] or "[]")),
        locator=json.loads(row["locator"] or "{}"),
        block_type=row["block_type"] or "paragraph",
        content=row["content"],
        index_text=row["index_text"],
        checksum=row["checksum"],
        enabled=bool(row["enabled"]),
    )


@dataclass(frozen=True)
class VectorOutcome:
    embedded: int
    error: str | None = None


def vectorise_document(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_id: str,
    document_id: str,
    provider: EmbeddingProvider,
    cancel: CancelToken,
    counted: Callable[[int], None] | None = None,
) -> VectorOutcome:
    """Embed the document's enabled retrievable chunks that lack a live vector of their current
    text; raises only CancelledError (the document then stays "pending"). ``counted`` hears how
    many chunks that is, before any is embedded (0 when a later change left nothing to do)."""
    rows = conn.execute("SELECT * FROM chunks WHERE document_id = ?", (document_id,)).fetchall()
    plan = plan_vectors(conn, library_id, document_id, [_draft(r) for r in rows], provider)
    if counted is not None:
        counted(len(plan.todo) if plan.version is not None else 0)
    if plan.version is None or not plan.todo:
        with transaction(conn):
            write_vectors(conn, data_dir, document_id, plan)
            _settle(conn, document_id, plan.version)
        return VectorOutcome(0)
    try:
        embed_plan(plan, provider, cancel)
    except CancelledError:
        raise
    except (KbError, ValueError) as exc:
        reason = exc.message if isinstance(exc, KbError) else str(exc)
        with transaction(conn):
            conn.execute(
                "UPDATE documents SET vector_status = 'failed', vector_error = ? WHERE id = ?",
                (f"embedding failed: {reason}"[:300], document_id),
            )
        return VectorOutcome(0, reason)
    with transaction(conn):
        _drop_changed(conn, plan)
        write_vectors(conn, data_dir, document_id, plan)
        _settle(conn, document_id, plan.version)
    if counted is not None:  # a chunk changed meanwhile: its vector was not kept, nor counted
        counted(len(plan.todo))
    return VectorOutcome(len(plan.todo))


def _drop_changed(conn: sqlite3.Connection, plan: VectorPlan) -> None:
    """Inside the write transaction: forget planned vectors whose chunk was edited, disabled or
    deleted while they were being embedded (a vector must match its chunk's current text)."""
    assert plan.matrix is not None
    keep = []
    for i, draft in enumerate(plan.todo):
        row = conn.execute(
            "SELECT checksum, enabled FROM chunks WHERE id = ?", (draft.id,)
        ).fetchone()
        if row is not None and row["enabled"] and row["checksum"] == draft.checksum:
            keep.append(i)
    if len(keep) != len(plan.todo):
        plan.todo = [plan.todo[i] for i in keep]
        plan.matrix = plan.matrix[np.array(keep, dtype=np.int64)] if keep else None


def _settle(conn: sqlite3.Connection, document_id: str, version: store.Version | None) -> None:
    """The document's vector status from what now serves (write_vectors assumed the plan was
    complete; a change meanwhile leaves it pending for the next task)."""
    if version is None:
        return
    row = conn.execute(
        "SELECT vector_status, vector_error FROM documents WHERE id = ?", (document_id,)
    ).fetchone()
    if row is None or row["vector_status"] != "done" or row["vector_error"] == INCOMPATIBLE:
        return
    if _missing(conn, document_id, version.id):
        conn.execute("UPDATE documents SET vector_status = 'pending' WHERE id = ?", (document_id,))
