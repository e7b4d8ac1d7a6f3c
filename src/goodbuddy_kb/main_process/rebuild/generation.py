"""A document's next generation, built beside the serving one: chunk drafts plus the vectors
the current index version lacks for them, and the in-transaction step that writes those vectors
with the chunks. Reusable by anything that replaces a document's chunks (sync, rebuild, chunk
maintenance)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.vectors import store
from goodbuddy_kb.main_process.vectors.build import embed_with_retry

INCOMPATIBLE = "index built with another model or endpoint; rebuild needed"


@dataclass
class VectorPlan:
    """What the new generation needs from the vector index.

    ``version`` is the library's current version when it was made by ``provider`` (new vectors
    are appended to it); otherwise no vectors are written here and ``status`` says why
    (``disabled`` without a provider, ``pending`` before the first build, ``incompatible``
    after a model or endpoint switch — a full vector build follows separately).
    """

    status: str
    version: store.Version | None = None
    todo: list[ChunkDraft] = field(default_factory=list)
    matrix: Matrix | None = None


def plan_vectors(
    conn: sqlite3.Connection,
    library_id: str,
    document_id: str,
    drafts: list[ChunkDraft],
    provider: EmbeddingProvider | None,
) -> VectorPlan:
    """Which drafts need a vector: retrievable, enabled (``drafts`` as they will be stored, with
    the manual work carried over), and without a live vector of the same text in the current
    version (an unchanged chunk keeps its row and so its vector)."""
    if provider is None:
        return VectorPlan("disabled")
    current = store.current(conn, library_id)
    if current is None:
        return VectorPlan("pending")
    if provider.variant_for(current.fingerprint, current.dims) is None:
        return VectorPlan("incompatible")
    have = {
        (r[0], r[1])
        for r in conn.execute(
            "SELECT c.id, c.checksum FROM chunks c JOIN vector_rows v ON v.chunk_seq = c.seq"
            " WHERE c.document_id = ? AND v.version_id = ? AND v.alive = 1"
            " AND v.checksum = c.checksum",
            (document_id, current.id),
        )
    }
    todo = [
        d for d in drafts if d.role != "parent" and d.enabled and (d.id, d.checksum) not in have
    ]
    return VectorPlan("done", current, todo)


def embed_plan(plan: VectorPlan, provider: EmbeddingProvider, cancel: CancelToken) -> None:
    """Embed ``plan.todo`` in the provider's batches (retried with backoff); raises the
    provider's error (UnavailableError, TimeoutError_) or ValueError on bad dimensions."""
    if plan.version is None or not plan.todo:
        return
    parts: list[Matrix] = []
    for first in range(0, len(plan.todo), provider.batch_size):
        cancel.check()
        batch = plan.todo[first : first + provider.batch_size]
        matrix = embed_with_retry(provider, [d.index_text for d in batch], cancel)
        if matrix.shape != (len(batch), plan.version.dims):
            raise ValueError(
                f"the service returned {matrix.shape[-1]}-dimensional vectors;"
                f" the index has {plan.version.dims}"
            )
        parts.append(matrix)
    plan.matrix = np.concatenate(parts).astype(np.float32, copy=False)


def write_vectors(
    conn: sqlite3.Connection, data_dir: Path, document_id: str, plan: VectorPlan
) -> None:
    """Inside the transaction that replaced the document's chunks: append the planned vectors
    and set the document's vector status for the generation now serving."""
    status, note = plan.status, INCOMPATIBLE if plan.status == "incompatible" else None
    version = plan.version
    if version is not None:
        still = conn.execute(
            "SELECT current_vector_version FROM libraries WHERE id = ?", (version.library_id,)
        ).fetchone()
        if still is None or still[0] != version.id:
            status = "pending"  # the version changed meanwhile; vectorisation catches up
        elif plan.todo and plan.matrix is not None:
            seq_of = dict(
                conn.execute(
                    "SELECT id, seq FROM chunks WHERE document_id = ?", (document_id,)
                ).fetchall()
            )
            store.append_in_transaction(
                conn,
                data_dir,
                store.get(conn, version.id),
                [(seq_of[d.id], d.checksum) for d in plan.todo],
                plan.matrix,
            )
    conn.execute(
        "UPDATE documents SET vector_status = ?, vector_error = ? WHERE id = ?",
        (status, note, document_id),
    )
