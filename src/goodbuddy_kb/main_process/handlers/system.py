"""Handlers of `system:*`: ping, About, the diagnostics record (summary, export); and the first
run's sample library."""

from __future__ import annotations

import os
import shutil

from goodbuddy_kb import __version__, notices
from goodbuddy_kb.contracts.diagnostics import (
    DiagnosticsExportRequest,
    DiagnosticsExportResponse,
    DiagnosticsSummary,
    DiagnosticsSummaryRequest,
)
from goodbuddy_kb.contracts.graph import GraphSettings
from goodbuddy_kb.contracts.library import Library
from goodbuddy_kb.contracts.methods import (
    DIAGNOSTICS_EXPORT,
    DIAGNOSTICS_SUMMARY,
    LIBRARY_SAMPLE,
    SYSTEM_ABOUT,
    SYSTEM_PING,
)
from goodbuddy_kb.contracts.paths import wire_path
from goodbuddy_kb.contracts.system import (
    AboutInfo,
    AboutRequest,
    PingRequest,
    PingResponse,
    SampleLibraryRequest,
    SampleLibraryResponse,
)
from goodbuddy_kb.contracts.wire import API_VERSION
from goodbuddy_kb.main_process import diagnostics, sample
from goodbuddy_kb.main_process.graph import store as graph_store
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import libraries, sources


@handles(SYSTEM_PING)
def ping(ctx: CallContext, request: PingRequest) -> PingResponse:
    return PingResponse(version=__version__, api_version=API_VERSION, pid=os.getpid())


@handles(DIAGNOSTICS_SUMMARY)
def diagnostics_summary(ctx: CallContext, request: DiagnosticsSummaryRequest) -> DiagnosticsSummary:
    return diagnostics.summary(ctx.services.diagnostics, ctx.db.get(), request.recent)


@handles(DIAGNOSTICS_EXPORT)
def diagnostics_export(
    ctx: CallContext, request: DiagnosticsExportRequest
) -> DiagnosticsExportResponse:
    return diagnostics.export(
        ctx.services.diagnostics, ctx.db.get(), ctx.data_dir, request.path, request.overwrite
    )


@handles(SYSTEM_ABOUT)
def about(ctx: CallContext, request: AboutRequest) -> AboutInfo:
    return notices.about(wire_path(str(ctx.data_dir)))


@handles(LIBRARY_SAMPLE)
def sample_library(ctx: CallContext, request: SampleLibraryRequest) -> SampleLibraryResponse:
    """Copy the sample documents into the data directory, create a library over the copy, with
    its knowledge graph on (the local extractor: no model needed) and sync it (the copy goes
    again if the library cannot be made)."""
    conn = ctx.db.get()
    folder = sample.copy_documents(ctx.data_dir)
    library: Library | None = None
    try:
        library = sample.create_library(conn, request.language)
        graph_store.update(conn, library.id, GraphSettings(strategy="local"), None)
        row = sources.add(conn, library.id, "folder", wire_path(str(folder)), [], [], False)
    except Exception:
        if library is not None:
            libraries.delete(conn, library.id)
        shutil.rmtree(folder, ignore_errors=True)
        raise
    task = ctx.services.tasks.sync(library.id, row.id)
    ctx.changes.libraries = ctx.changes.sources = True
    ctx.changes.library_ids.append(library.id)
    return SampleLibraryResponse(
        library=library, task_id=task.id, folder=row.location, questions=list(sample.QUESTIONS)
    )
