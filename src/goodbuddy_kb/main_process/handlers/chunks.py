"""Handlers of chunk maintenance: `knowledge:chunks:list`, `knowledge:chunk:get`,
`knowledge:chunk:update` and `knowledge:chunk:delete` (PRD §8.4, §10). Each re-checks that the
chunk belongs to the document and the document to the library before reading or changing it."""

from __future__ import annotations

from goodbuddy_kb.contracts import chunks as c
from goodbuddy_kb.contracts.methods import (
    CHUNK_DELETE,
    CHUNK_GET,
    CHUNK_UPDATE,
    CHUNKS_DISMISS_REPLACED,
    CHUNKS_LIST,
)
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.maintenance import (
    delete_chunk,
    follow_up,
    owned_chunk,
    update_chunk,
)
from goodbuddy_kb.main_process.rebuild.document import get_document
from goodbuddy_kb.main_process.storage import chunk_listing, libraries, manual_work
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.storage.documents import GRAPH_WAITS


def _graph_follow_up(ctx: CallContext, library_id: str, document_id: str) -> None:
    """A chunk's changed, switched-off or deleted text loses its graph evidence at once (a
    trigger): the document waits for its graph again — extracted now where the library's graph
    is local, on demand where a model extracts it — instead of reading "done" with the names
    the text still holds missing from the graph until someone runs an extraction."""
    conn = ctx.db.get()
    with transaction(conn):
        conn.execute(GRAPH_WAITS, (document_id,))
    ctx.services.tasks.graph_after_indexing(library_id)


@handles(CHUNKS_LIST)
def list_chunks(ctx: CallContext, request: c.ChunksListRequest) -> c.ChunksListResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    get_document(conn, request.library_id, request.document_id)
    offset = int(request.cursor or 0)
    rows, total = chunk_listing.page(
        conn, request.document_id, offset, request.limit, request.search or None, request.role
    )
    after = offset + len(rows)
    return c.ChunksListResponse(
        chunks=rows,
        total=total,
        next_cursor=str(after) if rows and after < total else None,
        document=chunk_listing.document_info(conn, request.document_id),
        replaced=[
            c.ReplacedEdit(chunk_id=cid, content=text, replaced_at=when)
            for cid, text, when in manual_work.replaced(conn, request.document_id)
        ],
    )


@handles(CHUNKS_DISMISS_REPLACED)
def dismiss_replaced(
    ctx: CallContext, request: c.ReplacedDismissRequest
) -> c.ReplacedDismissResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    get_document(conn, request.library_id, request.document_id)
    dismissed = manual_work.dismiss_replaced(conn, request.document_id)
    ctx.changes.library_ids.append(request.library_id)
    ctx.changes.documents = True
    return c.ReplacedDismissResponse(
        dismissed=dismissed, document=chunk_listing.document_info(conn, request.document_id)
    )


@handles(CHUNK_GET)
def get_chunk(ctx: CallContext, request: c.ChunkRequest) -> c.ChunkDetail:
    conn = ctx.db.get()
    row = owned_chunk(conn, request.library_id, request.document_id, request.chunk_id)
    summary = chunk_listing.summary_of(conn, row["seq"])
    return c.ChunkDetail(chunk=summary, content=row["content"], children=summary.child_count)


@handles(CHUNK_UPDATE)
def update(ctx: CallContext, request: c.ChunkUpdateRequest) -> c.ChunkUpdateResponse:
    conn = ctx.db.get()
    provider = ctx.services.embedding()
    change = update_chunk(
        conn,
        request.library_id,
        request.document_id,
        request.chunk_id,
        request.content,
        request.enabled,
    )
    vector: c.VectorFollowUp = "not_needed"
    task_id: str | None = None
    if change.content_changed or change.enabled_changed:
        vector = follow_up(conn, request.library_id, request.document_id, provider)
        if vector == "queued":
            task_id = ctx.services.tasks.vectorize_document(
                request.library_id, request.document_id
            ).id
        elif vector == "waiting_for_index":
            # no serving version yet: the library's first build embeds this chunk too
            task_id = ctx.services.tasks.vectorize(request.library_id).id
            vector = "queued"
        _graph_follow_up(ctx, request.library_id, request.document_id)
        ctx.changes.library_ids.append(request.library_id)
        ctx.changes.documents = True
    return c.ChunkUpdateResponse(
        chunk=chunk_listing.summary_of(conn, change.seq),
        vector=vector,
        vector_task_id=task_id,
        document=chunk_listing.document_info(conn, request.document_id),
    )


@handles(CHUNK_DELETE)
def delete(ctx: CallContext, request: c.ChunkRequest) -> c.ChunkDeleteResponse:
    conn = ctx.db.get()
    provider = ctx.services.embedding()
    removal = delete_chunk(conn, request.library_id, request.document_id, request.chunk_id)
    follow_up(conn, request.library_id, request.document_id, provider)
    _graph_follow_up(ctx, request.library_id, request.document_id)
    ctx.changes.library_ids.append(request.library_id)
    ctx.changes.documents = True
    return c.ChunkDeleteResponse(
        chunk_id=request.chunk_id,
        detached_children=removal.detached_children,
        document=chunk_listing.document_info(conn, request.document_id),
    )
