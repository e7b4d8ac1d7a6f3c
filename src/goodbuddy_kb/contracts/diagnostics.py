"""Contracts of `system:diagnostics:*`: the local diagnostics record and its export (PRD §13)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.limits import MAX_PATH_CHARACTERS

#: Where a recorded search came from: `knowledge:retrieve` (the workbench, the CLI), the chat's
#: search before the model answers, the chat model's own `knowledge_search` call, or an external
#: AI tool over MCP.
SearchOrigin = Literal["retrieve", "chat-presearch", "chat-tool", "mcp"]
#: The retrieval mode (PRD §13): a chat's "always" (search first) or "auto" (the model
#: decides); "direct" for a search run as it was asked (workbench, CLI, MCP).
SearchMode = Literal["always", "auto", "direct"]


class DiagnosticEvent(ContractModel):
    id: int
    at: str
    #: retrieve | sync | vectorize | rebuild | …
    kind: str
    #: ok | degraded | failed | cancelled | interrupted
    outcome: str
    duration_ms: float
    details: dict[str, Any]


class DiagnosticTotals(ContractModel):
    kind: str
    count: int
    ok: int
    degraded: int
    failed: int
    cancelled: int
    average_ms: float


class DiagnosticsSummaryRequest(ContractModel):
    recent: int = Field(50, ge=0, le=500)


class DiagnosticsSummary(ContractModel):
    events: int
    capacity: int
    since: str | None
    totals: list[DiagnosticTotals]
    recent: list[DiagnosticEvent]


class ExportTarget(ContractModel):
    """Where an export writes: the file the window's save dialog (or the CLI) chose."""

    #: Absolute path of the file to write.
    path: str = Field(min_length=1, max_length=MAX_PATH_CHARACTERS)
    #: Replace an existing regular file there (the window's save dialog has asked); without it
    #: an existing path is refused. A link, folder or device is never replaced.
    overwrite: bool = False

    @field_validator("path")
    @classmethod
    def _printable(cls, value: str) -> str:
        if any(ord(ch) < 32 for ch in value):
            raise ValueError("must not contain control characters")
        return value


class DiagnosticsExportRequest(ExportTarget):
    """The diagnostics record as a JSON file."""


class DiagnosticsExportResponse(ContractModel):
    path: str
    bytes: int
    events: int
