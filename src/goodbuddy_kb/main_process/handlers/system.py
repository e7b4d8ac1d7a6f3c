"""Handlers of `system:*`: ping and the diagnostics record (summary, export)."""

from __future__ import annotations

import os

from goodbuddy_kb import __version__
from goodbuddy_kb.contracts.diagnostics import (
    DiagnosticsExportRequest,
    DiagnosticsExportResponse,
    DiagnosticsSummary,
    DiagnosticsSummaryRequest,
)
from goodbuddy_kb.contracts.methods import DIAGNOSTICS_EXPORT, DIAGNOSTICS_SUMMARY, SYSTEM_PING
from goodbuddy_kb.contracts.system import PingRequest, PingResponse
from goodbuddy_kb.contracts.wire import API_VERSION
from goodbuddy_kb.main_process import diagnostics
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles


@handles(SYSTEM_PING)
def ping(ctx: CallContext, request: PingRequest) -> PingResponse:
    return PingResponse(version=__version__, api_version=API_VERSION, pid=os.getpid())


@handles(DIAGNOSTICS_SUMMARY)
def diagnostics_summary(ctx: CallContext, request: DiagnosticsSummaryRequest) -> DiagnosticsSummary:
    return diagnostics.summary(ctx.db.get(), request.recent)


@handles(DIAGNOSTICS_EXPORT)
def diagnostics_export(
    ctx: CallContext, request: DiagnosticsExportRequest
) -> DiagnosticsExportResponse:
    return diagnostics.export(ctx.db.get(), ctx.data_dir, request.path, request.overwrite)
