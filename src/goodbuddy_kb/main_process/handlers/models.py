"""Handlers of `models:embedding:*` and `knowledge:vectors:*`."""

from __future__ import annotations

import time

from goodbuddy_kb.contracts import models as c
from goodbuddy_kb.contracts.chat import ChatConnection
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.limits import CONNECTION_TEST_TIMEOUT_SECONDS
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_GET,
    EMBEDDING_TEST,
    EMBEDDING_UPDATE,
    MODELS_LIST,
    VECTORS_REBUILD,
    VECTORS_STATUS,
)
from goodbuddy_kb.main_process.connection_test import explain
from goodbuddy_kb.main_process.embeddings import (
    load_connection,
    provider_for,
    save_connection,
)
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.key_origin import (
    bound_origin,
    check_kept,
    store_key,
    typed_or_stored,
)
from goodbuddy_kb.main_process.model_list import list_models
from goodbuddy_kb.main_process.storage import app_settings, libraries
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.storage.setting_keys import (
    CHAT_API_KEY,
    CHAT_SETTING,
    EMBEDDING_API_KEY,
)
from goodbuddy_kb.main_process.vectors import store
from goodbuddy_kb.main_process.vectors.build import refresh_status


def _info(ctx: CallContext) -> c.EmbeddingInfo:
    connection = load_connection(ctx.db.get())
    provider = (
        ctx.services.embedding() if connection.kind in ("local", "deterministic", "none") else None
    )
    return c.EmbeddingInfo(
        connection=connection,
        has_api_key=bool(ctx.services.credentials.get(EMBEDDING_API_KEY)),
        key_origin=bound_origin(ctx.services.credentials, EMBEDDING_API_KEY, connection.base_url),
        data_path=connection.data_path(),
        fingerprint=provider.fingerprint if provider is not None else None,
    )


@handles(EMBEDDING_GET)
def get_embedding(ctx: CallContext, request: c.EmbeddingGetRequest) -> c.EmbeddingInfo:
    return _info(ctx)


@handles(EMBEDDING_UPDATE)
def update_embedding(ctx: CallContext, request: c.EmbeddingUpdateRequest) -> c.EmbeddingInfo:
    """An explicit switch of the model connection. Existing indexes stay as they are; ones built
    by another provider report themselves incompatible until the user rebuilds them."""
    url = request.connection.base_url
    if request.api_key is not None:
        store_key(ctx.services.credentials, EMBEDDING_API_KEY, request.api_key, url)
    else:
        saved = load_connection(ctx.db.get()).base_url
        check_kept(ctx.services.credentials, EMBEDDING_API_KEY, url, saved)
    save_connection(ctx.db.get(), request.connection)
    ctx.services.reset_embedding()
    # No endpoint probe here: compatibility is decided from the connection and each index's
    # dimensions, so a down service cannot stall the writer nor contradict the index status.
    provider = ctx.services.embedding()
    conn = ctx.db.get()
    for library in libraries.list_all(conn):
        current = store.current(conn, library.id)
        fingerprint = (
            None
            if provider is None
            else provider.fingerprint_serving(
                current.fingerprint if current else None, current.dims if current else None
            )
        )
        refresh_status(conn, library.id, fingerprint)
    ctx.changes.settings = ctx.changes.documents = True
    return _info(ctx)


def _failed(error: str, key: str | None = None, says: str | None = None) -> c.EmbeddingTestResponse:
    return c.EmbeddingTestResponse(
        ok=False, dimensions=None, latency_ms=None, error=explain(error, key, says)
    )


@handles(EMBEDDING_TEST)
def test_embedding(ctx: CallContext, request: c.EmbeddingTestRequest) -> c.EmbeddingTestResponse:
    """Embeds one short text with exactly the requested connection and key (by default the saved
    ones). Nothing is saved and the serving provider is not replaced."""
    stored = load_connection(ctx.db.get())
    connection = request.connection or stored
    if connection.kind == "none":
        return _failed("semantic search is off: there is no embedding model to test")
    try:
        key = typed_or_stored(
            ctx.services.credentials,
            EMBEDDING_API_KEY,
            request.api_key,
            connection.base_url,
            stored.base_url,
        )
    except KbError as exc:
        return _failed(exc.message)
    # The serving local provider has its model loaded already; anything else is made for this
    # test alone, with a short timeout, and closed afterwards.
    shared = connection == stored and connection.kind in ("local", "deterministic")
    provider = None
    started = time.perf_counter()
    try:
        provider = (
            ctx.services.embedding()
            if shared
            else provider_for(
                connection.model_copy(
                    update={"timeout_s": min(connection.timeout_s, CONNECTION_TEST_TIMEOUT_SECONDS)}
                ),
                key or None,
            )
        )
        if provider is None:
            return _failed("semantic search is off: there is no embedding model to test")
        vector = provider.embed_query("connection test / 连接测试")
    except KbError as exc:
        return _failed(exc.message, key, exc.says)
    finally:
        if provider is not None and not shared:
            provider.close()
    return c.EmbeddingTestResponse(
        ok=True,
        dimensions=int(vector.shape[0]),
        latency_ms=(time.perf_counter() - started) * 1000,
        error=None,
    )


@handles(VECTORS_STATUS)
def vector_status(ctx: CallContext, request: c.VectorStatusRequest) -> c.VectorIndexInfo:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    # a library's first version is searched while it fills: it counts as it goes
    current = store.serving(conn, request.library_id)
    building = conn.execute(
        "SELECT row_count FROM vector_versions WHERE library_id = ? AND state = 'building'"
        " ORDER BY created_at DESC LIMIT 1",
        (request.library_id,),
    ).fetchone()
    (chunks,) = conn.execute(
        "SELECT count(*) FROM chunks WHERE library_id = ? AND enabled = 1 AND role != 'parent'",
        (request.library_id,),
    ).fetchone()
    provider = ctx.services.embedding()
    compatible = (
        provider is not None
        and current is not None
        and provider.variant_for(current.fingerprint, current.dims) is not None
    )
    # Still served by the encoder that built it, but today's encoder is another: a rebuild is
    # offered (the bundled model's float32 index once int8 is the default, or the reverse).
    upgrade = (
        compatible
        and provider is not None
        and current is not None
        and provider.upgrade_offered(current.fingerprint, current.dims)
    )
    reason: Reason | None = None
    if provider is None:
        reason = Reason("vector.no_model")
    elif current is None:
        reason = Reason("vector.no_index")
    elif not compatible:
        reason = Reason("vector.incompatible")
    elif upgrade:
        reason = Reason("vector.encoder_upgrade")
    missing = store.count_missing(conn, request.library_id, current.id) if current else chunks
    if building is not None and current is not None and not compatible:
        # a rebuild for the configured model beside an index no question of it can use: what
        # counts is how far the new one is ("building · 40/40" beside the task's 10/40)
        missing = max(0, chunks - int(building[0]))
    return c.VectorIndexInfo(
        state="building" if building else ("ready" if current else "none"),
        compatible=compatible,
        reason=reason,
        model_label=current.label if current else None,
        configured_label=provider.label if provider is not None else None,
        vectors=chunks - missing,
        retrievable_chunks=chunks,
        last_failure=store.last_failure(conn, request.library_id),
        rebuild_offered=upgrade,
        vectorising=task_store.active(conn, request.library_id, "vectorize"),
    )


@handles(VECTORS_REBUILD)
def rebuild(ctx: CallContext, request: c.VectorRebuildRequest) -> c.VectorRebuildResponse:
    libraries.get(ctx.db.get(), request.library_id)
    task = ctx.services.tasks.vectorize(request.library_id, rebuild=True)
    return c.VectorRebuildResponse(task_id=task.id)


@handles(MODELS_LIST)
def list_endpoint_models(ctx: CallContext, request: c.ModelListRequest) -> c.ModelListResponse:
    """The models the endpoint in the form offers (the typed key, else the stored one)."""
    # (The chat key's name is the chat handlers'; spelled here to keep the modules apart.)
    embedding = request.purpose == "embedding"
    name = EMBEDDING_API_KEY if embedding else CHAT_API_KEY
    conn = ctx.db.get()
    saved = (
        load_connection(conn).base_url
        if embedding
        else app_settings.read_or_default(conn, CHAT_SETTING, ChatConnection).base_url
    )
    try:
        key = typed_or_stored(
            ctx.services.credentials, name, request.api_key, request.base_url, saved
        )
    except KbError as exc:
        return c.ModelListResponse(ok=False, error=exc.message)
    return list_models(request.kind, request.base_url, key or None)
