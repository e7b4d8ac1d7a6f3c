"""Shared contracts: settings, requests, responses, limits, errors and the IPC method table.

This package is imported by both processes and imports neither Qt nor sqlite3.
"""

from __future__ import annotations

from goodbuddy_kb.contracts import limits
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import (
    CancelledError,
    ConflictError,
    ErrorCode,
    ErrorPayload,
    InternalError,
    InvalidRequestError,
    KbError,
    NotFoundError,
    PayloadTooLargeError,
    TimeoutError_,
    UnauthorizedError,
    UnavailableError,
    redact,
)
from goodbuddy_kb.contracts.methods import (
    METHODS,
    NOTIFICATIONS,
    MethodSpec,
    NotificationSpec,
)
from goodbuddy_kb.contracts.settings import (
    KnowledgeChunkingSettings,
    KnowledgeRetrievalSettings,
)

__all__ = [
    "METHODS",
    "NOTIFICATIONS",
    "CancelledError",
    "ConflictError",
    "ContractModel",
    "ErrorCode",
    "ErrorPayload",
    "InternalError",
    "InvalidRequestError",
    "KbError",
    "KnowledgeChunkingSettings",
    "KnowledgeRetrievalSettings",
    "MethodSpec",
    "NotFoundError",
    "NotificationSpec",
    "PayloadTooLargeError",
    "TimeoutError_",
    "UnauthorizedError",
    "UnavailableError",
    "limits",
    "redact",
]
