"""Contracts of what a person does with a whole conversation or answer beyond chatting: export
it to a file, copy one answer with its sources, regenerate the last answer."""

from __future__ import annotations

from typing import Literal

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.diagnostics import ExportTarget
from goodbuddy_kb.contracts.library import EntityId

ExportFormat = Literal["markdown", "html"]
CopyFormat = Literal["markdown", "text"]
#: The reader's language: the labels ("Question", "Sources") and an evidence-only answer's
#: no-chat-model note in it alone; None: in both, "问题 / Question" (the command line's way).
ReaderLanguage = Literal["zh", "en"] | None


class ConversationExportRequest(ExportTarget):
    """Write the conversation (title, date, each question and answer, and under each answer
    its numbered sources) to ``path``; the path rules are those of `system:diagnostics:export`."""

    conversation_id: EntityId
    format: ExportFormat = "markdown"
    language: ReaderLanguage = None


class ConversationExportResponse(ContractModel):
    path: str
    bytes: int
    message_count: int


class MessageCopyRequest(ContractModel):
    message_id: EntityId
    format: CopyFormat = "markdown"
    language: ReaderLanguage = None


class MessageCopyResponse(ContractModel):
    """One answer with its numbered sources, rendered as the export renders it."""

    text: str


class RegenerateRequest(ContractModel):
    """Ask the conversation's last question again (its stored scope and mode, a new retrieval);
    the new answer replaces the last one. Streams like `chat:send`; the response is a
    `SendResponse`."""

    conversation_id: EntityId
    request_id: EntityId | None = None
