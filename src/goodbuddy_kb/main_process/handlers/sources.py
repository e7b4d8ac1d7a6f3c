"""Handlers of `knowledge:source:*`, `knowledge:documents:list` and `knowledge:tasks:*`."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.formats import READABLE_SUFFIXES
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    SOURCE_ADD,
    SOURCE_LIST,
    SOURCE_REMOVE,
    SOURCE_SYNC,
    SOURCE_WATCH,
    TASKS_CANCEL,
    TASKS_LIST,
)
from goodbuddy_kb.contracts.paths import os_path, readable_path, wire_path
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.parsing import SUPPORTED_SUFFIXES, ParseError, old_format
from goodbuddy_kb.main_process.storage import documents, libraries, sources
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.sync import web_auth
from goodbuddy_kb.main_process.sync.folder import kept_out
from goodbuddy_kb.main_process.sync.overlap import refuse_overlap
from goodbuddy_kb.main_process.sync.web import check_url


def _location(kind: c.SourceKind, location: str) -> str:
    if kind == "web":
        try:
            return check_url(location.strip())
        except ParseError as exc:
            raise InvalidRequestError(
                exc.reason, {"fields": [{"field": "location", "problem": exc.reason}]}
            ) from None
    path = Path(os_path(location)).expanduser()
    if not path.is_absolute():
        raise InvalidRequestError(
            "the path must be absolute",
            {"fields": [{"field": "location", "problem": "not absolute"}]},
        )
    try:
        resolved = path.resolve()
        exists = resolved.is_dir() if kind == "folder" else resolved.is_file()
    except (OSError, RuntimeError, ValueError) as exc:
        # A symbolic-link loop, a name longer than the system allows, an embedded NUL.
        reason = getattr(exc, "strerror", None) or "symbolic link loop or invalid name"
        raise InvalidRequestError(
            f"the path cannot be used ({reason})",
            {"fields": [{"field": "location", "problem": "cannot be used"}]},
        ) from None
    if not exists:
        what = "folder" if kind == "folder" else "file"
        raise InvalidRequestError(
            f"no such {what}: {readable_path(str(path))}",
            {"fields": [{"field": "location", "problem": f"no such {what}"}]},
        )
    if kept_out(resolved) is not None:
        raise InvalidRequestError(
            CATALOGUE["source.data_dir"],
            {"fields": [{"field": "location", "problem": "inside the data directory"}]},
        )
    suffix = resolved.suffix.lower()
    old = old_format(suffix)
    if kind == "file" and old is not None:  # the way out, before it is added to fail
        raise InvalidRequestError(
            old,
            {"fields": [{"field": "location", "problem": "unsupported file type"}]},
        )
    if kind == "file" and suffix not in SUPPORTED_SUFFIXES:
        # refused before it is added, not added "✓ OK" and then failed ("/etc/shadow")
        raise InvalidRequestError(
            f"this kind of file cannot be read ({suffix or CATALOGUE['source.no_extension']});"
            f" readable are {' '.join(sorted(READABLE_SUFFIXES))}",
            {"fields": [{"field": "location", "problem": "unsupported file type"}]},
        )
    return wire_path(str(resolved))


def _describe(ctx: CallContext, library_id: str, source_id: str) -> c.Source:
    return next(s for s in sources.describe(ctx.db.get(), library_id) if s.id == source_id)


@handles(SOURCE_ADD)
def add(ctx: CallContext, request: c.SourceAddRequest) -> c.SourceAddResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    location, userinfo = web_auth.split_userinfo(_location(request.kind, request.location))
    refuse_overlap(
        sources.list_rows(conn, request.library_id),
        request.kind,
        location,
        request.include,
        request.exclude,
    )
    watch = request.kind == "folder" and (request.watch if request.watch is not None else True)
    row = sources.add(
        conn, request.library_id, request.kind, location, request.include, request.exclude, watch
    )
    web_auth.remember(row.id, userinfo)
    ctx.services.rewatch()
    task = ctx.services.tasks.sync(row.library_id, row.id) if request.sync else None
    ctx.changes.sources = True
    ctx.changes.library_ids.append(row.library_id)
    return c.SourceAddResponse(
        source=_describe(ctx, row.library_id, row.id), task_id=task.id if task else None
    )


@handles(SOURCE_LIST)
def list_sources(ctx: CallContext, request: c.SourceListRequest) -> c.SourceListResponse:
    libraries.get(ctx.db.get(), request.library_id)
    return c.SourceListResponse(sources=sources.describe(ctx.db.get(), request.library_id))


@handles(SOURCE_REMOVE)
def remove(ctx: CallContext, request: c.SourceRemoveRequest) -> c.SourceRemoveResponse:
    count = sources.remove(ctx.db.get(), request.library_id, request.source_id)
    web_auth.forget([request.source_id])
    ctx.services.rewatch()
    ctx.changes.sources = ctx.changes.documents = True
    ctx.changes.library_ids.append(request.library_id)
    return c.SourceRemoveResponse(source_id=request.source_id, removed_documents=count)


@handles(SOURCE_SYNC)
def sync(ctx: CallContext, request: c.SourceSyncRequest) -> c.SourceSyncResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    if request.source_id is not None:
        targets = [sources.get(conn, request.library_id, request.source_id)]
    else:
        targets = sources.list_rows(conn, request.library_id)
    ids = [ctx.services.tasks.sync(row.library_id, row.id).id for row in targets]
    return c.SourceSyncResponse(task_ids=ids)


@handles(SOURCE_WATCH)
def watch(ctx: CallContext, request: c.SourceWatchRequest) -> c.SourceWatchResponse:
    row = sources.get(ctx.db.get(), request.library_id, request.source_id)
    if row.kind != "folder" and request.watch:
        raise InvalidRequestError(
            "only folder sources can be watched", {"fields": [{"field": "watch"}]}
        )
    sources.set_watch(ctx.db.get(), request.library_id, request.source_id, request.watch)
    ctx.services.rewatch()
    ctx.changes.sources = True
    ctx.changes.library_ids.append(request.library_id)
    return c.SourceWatchResponse(source=_describe(ctx, request.library_id, request.source_id))


@handles(DOCUMENTS_LIST)
def list_documents(ctx: CallContext, request: c.DocumentListRequest) -> c.DocumentListResponse:
    conn = ctx.db.get()
    libraries.get(conn, request.library_id)
    docs, total = documents.page(
        conn, request.library_id, request.offset, request.limit, request.filter
    )
    summary = documents.summary(conn, request.library_id)
    left_out = {"not_imported": sources.not_imported(conn, request.library_id)}
    return c.DocumentListResponse(
        documents=docs, total=total, summary=summary.model_copy(update=left_out)
    )


@handles(TASKS_LIST)
def list_tasks(ctx: CallContext, request: t.TaskListRequest) -> t.TaskListResponse:
    recent = task_store.list_recent(ctx.db.get(), request.library_id, request.limit)
    return t.TaskListResponse(tasks=ctx.services.tasks.listed(recent))


@handles(TASKS_CANCEL)
def cancel(ctx: CallContext, request: t.TaskCancelRequest) -> t.TaskCancelResponse:
    return t.TaskCancelResponse(task=ctx.services.tasks.cancel(request.task_id))
