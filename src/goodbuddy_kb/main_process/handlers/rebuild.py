"""Handlers of `knowledge:document:rebuild` and `knowledge:library:rebuild` (check ownership,
queue a rebuild task, answer with its id — progress, cancel and history go through the tasks)
and `knowledge:rebuild:preview` (the manual chunk work a rebuild could discard)."""

from __future__ import annotations

from goodbuddy_kb.contracts import rebuild as c
from goodbuddy_kb.contracts.methods import DOCUMENT_REBUILD, LIBRARY_REBUILD, REBUILD_PREVIEW
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.rebuild import manual
from goodbuddy_kb.main_process.rebuild.document import get_document
from goodbuddy_kb.main_process.storage import libraries


@handles(DOCUMENT_REBUILD)
def rebuild_document(ctx: CallContext, request: c.DocumentRebuildRequest) -> c.RebuildResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    get_document(conn, request.library_id, request.document_id)
    task = ctx.services.tasks.rebuild_document(
        request.library_id, request.document_id, request.manual_work
    )
    return c.RebuildResponse(task_id=task.id)


@handles(LIBRARY_REBUILD)
def rebuild_library(ctx: CallContext, request: c.LibraryRebuildRequest) -> c.RebuildResponse:
    libraries.get(ctx.db.get(), request.library_id)
    task = ctx.services.tasks.rebuild_library(request.library_id, request.manual_work)
    return c.RebuildResponse(task_id=task.id)


@handles(REBUILD_PREVIEW)
def rebuild_preview(ctx: CallContext, request: c.RebuildPreviewRequest) -> c.RebuildPreviewResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    if request.document_id is not None:
        get_document(conn, request.library_id, request.document_id)
    return manual.preview(conn, request.library_id, request.document_id)
