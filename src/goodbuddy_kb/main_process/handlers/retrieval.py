"""Handlers of `knowledge:retrieve`, `system:cancel`, `knowledge:reference:*`, `models:rerank:*`."""

from __future__ import annotations

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    REFERENCE_CONTEXT,
    REFERENCE_OPEN,
    REFERENCE_STATES,
    RERANK_GET,
    RERANK_TEST,
    RERANK_UPDATE,
    RETRIEVE,
    SYSTEM_CANCEL,
)
from goodbuddy_kb.main_process import diagnostics, references
from goodbuddy_kb.main_process.connection_test import probe_rerank
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.key_origin import (
    bound_origin,
    check_kept,
    store_key,
    typed_or_stored,
)
from goodbuddy_kb.main_process.retrieval.pipeline import Retriever
from goodbuddy_kb.main_process.retrieval.stages import RerankService
from goodbuddy_kb.main_process.storage import app_settings, libraries
from goodbuddy_kb.main_process.storage.setting_keys import RERANK_API_KEY, RERANK_SETTING


def rerank_connection(ctx: CallContext) -> m.RerankConnection:
    return app_settings.read_or_default(ctx.db.get(), RERANK_SETTING, m.RerankConnection)


def retriever(ctx: CallContext) -> Retriever:
    def service() -> RerankService | None:
        connection = rerank_connection(ctx)
        if not connection.base_url:
            return None
        return RerankService(connection, ctx.services.credentials.get(RERANK_API_KEY))

    return Retriever(ctx.db.get(), ctx.data_dir, ctx.services.embedding, service)


@handles(RETRIEVE)
def retrieve(ctx: CallContext, request: c.RetrieveRequest) -> c.KnowledgeRetrievalResponse:
    with ctx.services.request(request.request_id) as cancel:
        return diagnostics.searched(
            ctx.services.diagnostics,
            request,
            lambda: retriever(ctx).run(request, cancel),
            "retrieve",
            "direct",
        )


@handles(SYSTEM_CANCEL)
def cancel(ctx: CallContext, request: c.CancelRequest) -> c.CancelResponse:
    return c.CancelResponse(cancelled=ctx.services.cancel_request(request.request_id))


@handles(REFERENCE_CONTEXT)
def reference_context(ctx: CallContext, request: c.ReferenceRequest) -> c.ReferenceContextResponse:
    libraries.get(ctx.db.get(), request.library_id)
    return references.context(ctx.db.get(), request)


@handles(REFERENCE_STATES)
def reference_states(
    ctx: CallContext, request: c.ReferenceStatesRequest
) -> c.ReferenceStatesResponse:
    """Each citation's state; a library deleted since reads as its citations gone (the chunk
    is looked up by all three ids, the library's among them)."""
    conn = ctx.db.get()
    return c.ReferenceStatesResponse(states=[references.state(conn, x) for x in request.references])


@handles(REFERENCE_OPEN)
def reference_open(ctx: CallContext, request: c.ReferenceRequest) -> c.ReferenceOpenResponse:
    libraries.get(ctx.db.get(), request.library_id)
    kind, target = references.open_target(ctx.db.get(), request)
    ctx.services.opener(target)
    return c.ReferenceOpenResponse(opened=True, target_kind="url" if kind == "url" else "file")


def _rerank_info(ctx: CallContext) -> m.RerankInfo:
    connection = rerank_connection(ctx)
    return m.RerankInfo(
        connection=connection,
        has_api_key=bool(ctx.services.credentials.get(RERANK_API_KEY)),
        key_origin=bound_origin(ctx.services.credentials, RERANK_API_KEY, connection.base_url),
        configured=bool(connection.base_url and connection.model),
    )


@handles(RERANK_GET)
def rerank_get(ctx: CallContext, request: m.RerankGetRequest) -> m.RerankInfo:
    return _rerank_info(ctx)


@handles(RERANK_UPDATE)
def rerank_update(ctx: CallContext, request: m.RerankUpdateRequest) -> m.RerankInfo:
    url = request.connection.base_url
    if request.api_key is not None:
        store_key(ctx.services.credentials, RERANK_API_KEY, request.api_key, url)
    else:
        check_kept(ctx.services.credentials, RERANK_API_KEY, url, rerank_connection(ctx).base_url)
    app_settings.write(ctx.db.get(), RERANK_SETTING, request.connection)
    ctx.changes.settings = True
    return _rerank_info(ctx)


@handles(RERANK_TEST)
def rerank_test(ctx: CallContext, request: m.RerankTestRequest) -> m.RerankTestResponse:
    """A tiny real `/v1/rerank` call to exactly the requested connection and key (by default the
    saved ones); nothing is saved."""
    saved = rerank_connection(ctx)
    connection = request.connection or saved
    try:
        key = typed_or_stored(
            ctx.services.credentials,
            RERANK_API_KEY,
            request.api_key,
            connection.base_url,
            saved.base_url,
        )
    except KbError as exc:
        return m.RerankTestResponse(ok=False, scores=None, latency_ms=None, error=exc.message)
    return probe_rerank(connection, key or None)
