"""Handlers of what a person does with a conversation besides chatting in it: rename, pin,
restore after a delete, export to a file, copy one answer with its sources."""

from __future__ import annotations

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import conversations as cv
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.methods import (
    CONVERSATION_EXPORT,
    CONVERSATION_PIN,
    CONVERSATION_RENAME,
    CONVERSATION_RESTORE,
    MESSAGE_COPY,
)
from goodbuddy_kb.main_process import exportfile
from goodbuddy_kb.main_process.chat import store, transcript
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.storage import libraries


@handles(CONVERSATION_RENAME)
def rename(ctx: CallContext, request: c.ConversationRenameRequest) -> c.Conversation:
    return store.rename(ctx.db.get(), request.conversation_id, request.title)


@handles(CONVERSATION_PIN)
def pin(ctx: CallContext, request: c.ConversationPinRequest) -> c.Conversation:
    return store.set_pinned(ctx.db.get(), request.conversation_id, request.pinned)


@handles(CONVERSATION_RESTORE)
def restore(ctx: CallContext, request: c.ConversationRestoreRequest) -> c.Conversation:
    return store.restore_conversation(ctx.db.get(), request.conversation_id)


def _library_names(ctx: CallContext) -> transcript.LibraryNames:
    known: dict[str, str | None] = {}

    def name(library_id: str) -> str | None:
        if library_id not in known:
            try:
                known[library_id] = libraries.get(ctx.db.get(), library_id).name
            except NotFoundError:
                known[library_id] = None
        return known[library_id]

    return name


@handles(CONVERSATION_EXPORT)
def export(
    ctx: CallContext, request: cv.ConversationExportRequest
) -> cv.ConversationExportResponse:
    conn = ctx.db.get()
    conversation = store.get_conversation(conn, request.conversation_id)
    path = exportfile.target_path(request.path, request.overwrite)
    messages = store.list_messages(conn, request.conversation_id)
    render = (
        transcript.conversation_html
        if request.format == "html"
        else transcript.conversation_markdown
    )
    content = render(conversation, messages, _library_names(ctx), request.language).encode("utf-8")
    exportfile.write(path, content, request.overwrite)
    return cv.ConversationExportResponse(
        path=str(path), bytes=len(content), message_count=len(messages)
    )


@handles(MESSAGE_COPY)
def copy(ctx: CallContext, request: cv.MessageCopyRequest) -> cv.MessageCopyResponse:
    message = store.get_message(ctx.db.get(), request.message_id)
    render = transcript.answer_text if request.format == "text" else transcript.answer_markdown
    return cv.MessageCopyResponse(text=render(message, _library_names(ctx), request.language))
