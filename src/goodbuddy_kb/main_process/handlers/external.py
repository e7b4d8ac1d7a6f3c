"""Handlers of `external:*`: the read-only, user-scoped view external AI tools get (MCP).

Every call re-reads which libraries are exposed, so a library switched off or deleted while a
client is connected disappears at once. Searches run the same retrieval pipeline as the
workbench and the chat; references are re-checked for ownership and exposure. The only write is
the bounded call record.
"""

from __future__ import annotations

from goodbuddy_kb.contracts import external as c
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.methods import (
    EXTERNAL_CALLS_RECORD,
    EXTERNAL_CALLS_SUMMARY,
    EXTERNAL_CANCEL,
    EXTERNAL_LIBRARIES,
    EXTERNAL_REFERENCE,
    EXTERNAL_SEARCH,
)
from goodbuddy_kb.contracts.models import VectorStatusRequest
from goodbuddy_kb.contracts.retrieval import (
    CancelResponse,
    DegradedChannel,
    ReferenceContextResponse,
    ReferenceRequest,
    RetrievalOverrides,
    RetrieveRequest,
)
from goodbuddy_kb.main_process import diagnostics, references
from goodbuddy_kb.main_process.graph import store as graph_store
from goodbuddy_kb.main_process.handlers.models import vector_status
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.handlers.retrieval import retriever
from goodbuddy_kb.main_process.storage import external, libraries
from goodbuddy_kb.main_process.vectors import store


def _index_state(ctx: CallContext, library_id: str) -> tuple[int, int, c.ExternalIndexState]:
    conn = ctx.db.get()
    row = conn.execute(
        "SELECT count(*) AS documents,"
        " coalesce(sum(fulltext_status = 'pending'), 0) AS pending,"
        " coalesce(sum(parse_status = 'failed' OR fulltext_status = 'failed'), 0) AS failed"
        " FROM documents WHERE library_id = ?",
        (library_id,),
    ).fetchone()
    vectors = vector_status(ctx, VectorStatusRequest(library_id=library_id))
    degraded: list[DegradedChannel] = []
    if vectors.reason is not None:
        degraded.append(
            DegradedChannel(
                channel="vector",
                reason=vectors.reason,
                reason_code=vectors.reason_code,
                reason_params=vectors.reason_params,
            )
        )
    elif vectors.retrievable_chunks > vectors.vectors:
        current = store.current(conn, library_id)
        gaps = store.gap_count(conn, library_id, current.id) if current else 0
        if gaps:
            degraded.append(
                DegradedChannel(channel="vector", reason=Reason("vector.partial", count=gaps))
            )
    if (
        libraries.get_settings(conn, library_id).retrieval.graph_weight > 0
        and graph_store.settings(conn, library_id).strategy == "off"
    ):
        degraded.append(DegradedChannel(channel="graph", reason=Reason("graph.off")))
    chunks = vectors.retrievable_chunks
    state = c.ExternalIndexState(
        fulltext_ready=row["pending"] == 0,
        documents_pending=row["pending"],
        documents_failed=row["failed"],
        vector_state=vectors.state,
        vectorized_chunks=vectors.vectors if vectors.compatible else 0,
        retrievable_chunks=chunks,
        vector_coverage=round(vectors.vectors / chunks, 4)
        if chunks and vectors.compatible
        else 0.0,
        degraded_channels=degraded,
    )
    return row["documents"], chunks, state


@handles(EXTERNAL_LIBRARIES)
def list_exposed(
    ctx: CallContext, request: c.ExternalLibrariesRequest
) -> c.ExternalLibrariesResponse:
    found = []
    for library in external.visible(ctx.db.get(), request.scope):
        documents, chunks, state = _index_state(ctx, library.id)
        found.append(
            c.ExternalLibrary(
                id=library.id,
                name=library.name,
                document_count=documents,
                chunk_count=chunks,
                index=state,
            )
        )
    return c.ExternalLibrariesResponse(libraries=found)


@handles(EXTERNAL_SEARCH)
def search(ctx: CallContext, request: c.ExternalSearchRequest) -> c.ExternalSearchResponse:
    chosen = external.resolve(ctx.db.get(), request.libraries, request.scope)
    retrieve = RetrieveRequest(
        library_ids=[lib.id for lib in chosen],
        query=request.query,
        overrides=RetrievalOverrides(top_k=request.top_k),
    )
    key = None if request.request_id is None else _cancel_key(request.request_id)
    with ctx.services.request(key) as cancel:
        response = diagnostics.searched(
            ctx.services.diagnostics,
            retrieve,
            lambda: retriever(ctx).run(retrieve, cancel),
            "mcp",
            "direct",
        )
    return c.ExternalSearchResponse(libraries=chosen, retrieval=response)


def _cancel_key(request_id: str) -> str:
    """External searches are registered apart from every other request, so an external client
    can stop its own searches and nothing else (`system:cancel` is not open to it)."""
    return f"external-search-{request_id}"


@handles(EXTERNAL_CANCEL)
def cancel_search(ctx: CallContext, request: c.ExternalCancelRequest) -> CancelResponse:
    return CancelResponse(cancelled=ctx.services.cancel_request(_cancel_key(request.request_id)))


@handles(EXTERNAL_REFERENCE)
def reference(ctx: CallContext, request: c.ExternalReferenceRequest) -> ReferenceContextResponse:
    ids = c.parse_citation_id(request.citation_id)
    if ids is None:
        raise InvalidRequestError(
            f"not a citation id: expected {c.CITATION_FORMAT}",
            {"fields": [{"field": "citationId", "problem": "malformed citation id"}]},
        )
    library_id, document_id, chunk_id = ids
    conn = ctx.db.get()
    if not external.is_visible(conn, library_id, request.scope):
        raise NotFoundError(
            "this citation is not from a library available to external AI tools",
            {"citationId": request.citation_id[:200]},
        )
    ref = ReferenceRequest(library_id=library_id, document_id=document_id, chunk_id=chunk_id)
    return references.context(conn, ref)


@handles(EXTERNAL_CALLS_RECORD)
def record_calls(
    ctx: CallContext, request: c.ExternalCallsRecordRequest
) -> c.ExternalCallsRecordResponse:
    recorded = external.record(ctx.db.get(), request.calls)
    ctx.changes.external_calls = True
    return c.ExternalCallsRecordResponse(recorded=recorded)


@handles(EXTERNAL_CALLS_SUMMARY)
def calls_summary(
    ctx: CallContext, request: c.ExternalCallsSummaryRequest
) -> c.ExternalCallsSummaryResponse:
    return external.summary(ctx.db.get())
