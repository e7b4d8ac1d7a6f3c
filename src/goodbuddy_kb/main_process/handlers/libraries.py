"""Handlers of `knowledge:library:*` and `knowledge:settings:*`."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    LIBRARY_RENAME,
    SETTINGS_GET,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.embeddings import load_connection
from goodbuddy_kb.main_process.graph import store as graph_store
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.sync import web_auth
from goodbuddy_kb.main_process.vectors import store as vector_store


@handles(LIBRARY_CREATE)
def create(ctx: CallContext, request: c.LibraryCreateRequest) -> c.LibraryCreateResponse:
    library = libraries.create(ctx.db.get(), request.name)
    ctx.changes.libraries = True
    ctx.changes.library_ids.append(library.id)
    return c.LibraryCreateResponse(library=library)


@handles(LIBRARY_LIST)
def list_libraries(ctx: CallContext, request: c.LibraryListRequest) -> c.LibraryListResponse:
    return c.LibraryListResponse(libraries=libraries.list_all(ctx.db.get()))


@handles(LIBRARY_RENAME)
def rename(ctx: CallContext, request: c.LibraryRenameRequest) -> c.LibraryRenameResponse:
    library = libraries.rename(ctx.db.get(), request.library_id, request.name)
    ctx.changes.libraries = True
    ctx.changes.library_ids.append(library.id)
    return c.LibraryRenameResponse(library=library)


@handles(LIBRARY_DELETE)
def delete(ctx: CallContext, request: c.LibraryDeleteRequest) -> c.LibraryDeleteResponse:
    web_sources = [r.id for r in sources.list_rows(ctx.db.get(), request.library_id)]
    versions = vector_store.version_ids(ctx.db.get(), request.library_id)
    ctx.services.tasks.cancel_library(request.library_id)  # its tasks end, saying why
    library = libraries.delete(ctx.db.get(), request.library_id)
    vector_store.remove_files(ctx.data_dir, versions)  # not left taking room until a restart
    web_auth.forget(web_sources)
    ctx.services.rewatch()
    ctx.changes.libraries = True
    ctx.changes.library_ids.append(library.id)
    return c.LibraryDeleteResponse(library_id=library.id, name=library.name)


@handles(SETTINGS_GET)
def get_settings(ctx: CallContext, request: c.SettingsGetRequest) -> c.LibrarySettings:
    return libraries.get_settings(ctx.db.get(), request.library_id)


def check_runnable(
    conn: sqlite3.Connection, library_id: str, retrieval: KnowledgeRetrievalSettings
) -> None:
    """At least one channel that can actually run must have a weight above 0: full-text,
    vectors with an embedding model configured, or the knowledge graph while the library's
    graph is on (local or model extraction)."""
    if retrieval.fts_weight > 0:
        return
    if retrieval.vector_weight > 0 and load_connection(conn).kind != "none":
        return
    graph_on = graph_store.settings(conn, library_id).strategy != "off"
    if retrieval.graph_weight > 0 and graph_on:
        return
    problem = (
        "no channel that can run has a weight above 0: give full-text, the knowledge graph or"
        " vectors (with an embedding model configured) a weight"
        if graph_on
        else "no channel that can run has a weight above 0: give full-text a weight, or vectors a "
        "weight with an embedding model configured (the knowledge graph is off)"
    )
    fields = ["retrieval.ftsWeight", "retrieval.vectorWeight"]
    raise InvalidRequestError(
        f"Invalid retrieval settings: {problem}",
        {
            "fields": [
                {"field": f, "problem": problem}
                for f in ([*fields, "retrieval.graphWeight"] if graph_on else fields)
            ]
        },
    )


@handles(SETTINGS_UPDATE)
def update_settings(ctx: CallContext, request: c.SettingsUpdateRequest) -> c.LibrarySettings:
    if request.retrieval is not None:
        check_runnable(ctx.db.get(), request.library_id, request.retrieval)
    result = libraries.update_settings(
        ctx.db.get(),
        request.library_id,
        request.retrieval,
        request.chunking,
        request.contextual_indexing,
        request.external_access,
        request.ocr_enabled,
        request.assistant_instructions,
    )
    if request.ocr_enabled:
        ctx.services.tasks.ocr(request.library_id)  # documents that waited with OCR off
    ctx.changes.settings = True
    ctx.changes.libraries = (
        request.chunking is not None
        or request.contextual_indexing is not None
        or request.external_access is not None
    )
    ctx.changes.library_ids.append(request.library_id)
    return result
