"""Handlers of `models:chat:*` and `chat:*`."""

from __future__ import annotations

import threading

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts.conversations import RegenerateRequest
from goodbuddy_kb.contracts.errors import (
    ConflictError,
    InvalidRequestError,
    KbError,
    UnavailableError,
)
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_MODEL_TEST,
    CHAT_MODEL_UPDATE,
    CHAT_REGENERATE,
    CHAT_SEND,
    CONVERSATION_CREATE,
    CONVERSATION_DELETE,
    CONVERSATION_LIST,
    CONVERSATION_SCOPE_UPDATE,
    MESSAGES_LIST,
    NOTIFY_CHAT,
)
from goodbuddy_kb.main_process.chat import store
from goodbuddy_kb.main_process.chat.clients import ChatClient
from goodbuddy_kb.main_process.chat.runtime import ChatRuntime
from goodbuddy_kb.main_process.connection_test import probe_chat
from goodbuddy_kb.main_process.handlers.registry import CallContext, handles
from goodbuddy_kb.main_process.handlers.retrieval import retriever
from goodbuddy_kb.main_process.key_origin import (
    bound_origin,
    check_kept,
    store_key,
    typed_or_stored,
)
from goodbuddy_kb.main_process.storage import app_settings, libraries
from goodbuddy_kb.main_process.storage.setting_keys import CHAT_API_KEY, CHAT_SETTING


def chat_connection(ctx: CallContext) -> c.ChatConnection:
    return app_settings.read_or_default(ctx.db.get(), CHAT_SETTING, c.ChatConnection)


def _info(ctx: CallContext) -> c.ChatInfo:
    connection = chat_connection(ctx)
    return c.ChatInfo(
        connection=connection,
        has_api_key=bool(ctx.services.credentials.get(CHAT_API_KEY)),
        key_origin=bound_origin(ctx.services.credentials, CHAT_API_KEY, connection.base_url),
    )


@handles(CHAT_MODEL_GET)
def get_chat_model(ctx: CallContext, request: c.ChatGetRequest) -> c.ChatInfo:
    return _info(ctx)


@handles(CHAT_MODEL_UPDATE)
def update_chat_model(ctx: CallContext, request: c.ChatUpdateRequest) -> c.ChatInfo:
    url = request.connection.base_url
    if request.api_key is not None:
        store_key(ctx.services.credentials, CHAT_API_KEY, request.api_key, url)
    else:
        check_kept(ctx.services.credentials, CHAT_API_KEY, url, chat_connection(ctx).base_url)
    app_settings.write(ctx.db.get(), CHAT_SETTING, request.connection)
    ctx.changes.settings = True
    return _info(ctx)


@handles(CHAT_MODEL_TEST)
def test_chat_model(ctx: CallContext, request: c.ChatTestRequest) -> c.ChatTestResponse:
    """A tiny real request to exactly the requested connection and key (by default the saved
    ones); nothing is saved."""
    saved = chat_connection(ctx)
    connection = request.connection or saved
    try:
        key = typed_or_stored(
            ctx.services.credentials,
            CHAT_API_KEY,
            request.api_key,
            connection.base_url,
            saved.base_url,
        )
    except KbError as exc:
        return c.ChatTestResponse(
            ok=False, model=None, reply=None, latency_ms=None, error=exc.message
        )
    return probe_chat(connection, key or None)


@handles(CONVERSATION_CREATE)
def create(ctx: CallContext, request: c.ConversationCreateRequest) -> c.Conversation:
    if request.scope is not None:
        _check_scope(ctx, request.scope)
    return store.create_conversation(ctx.db.get(), request.title, request.scope)


def _check_scope(ctx: CallContext, scope: c.ChatScope) -> None:
    """A scope names only libraries that exist (a deleted one is refused, never kept)."""
    for library_id in scope.library_ids:
        libraries.get(ctx.db.get(), library_id)


@handles(CONVERSATION_SCOPE_UPDATE)
def update_scope(ctx: CallContext, request: c.ConversationScopeUpdateRequest) -> c.Conversation:
    _check_scope(ctx, request.scope)
    return store.set_scope(ctx.db.get(), request.conversation_id, request.scope)


@handles(CONVERSATION_LIST)
def list_conversations(
    ctx: CallContext, request: c.ConversationListRequest
) -> c.ConversationListResponse:
    return c.ConversationListResponse(
        conversations=store.list_conversations(ctx.db.get(), request.query, request.limit)
    )


@handles(CONVERSATION_DELETE)
def delete(ctx: CallContext, request: c.ConversationDeleteRequest) -> c.ConversationDeleteResponse:
    store.delete_conversation(ctx.db.get(), request.conversation_id)
    return c.ConversationDeleteResponse(conversation_id=request.conversation_id)


@handles(MESSAGES_LIST)
def list_messages(ctx: CallContext, request: c.MessagesListRequest) -> c.MessagesListResponse:
    return c.MessagesListResponse(
        messages=store.list_messages(ctx.db.get(), request.conversation_id)
    )


#: Conversations with an answer being written in this session (how many requests each).
_ANSWERING: dict[str, int] = {}
_ANSWERING_LOCK = threading.Lock()


@handles(CHAT_SEND)
def send(ctx: CallContext, request: c.SendRequest) -> c.SendResponse:
    return _answer(ctx, request)


def _answer(
    ctx: CallContext, request: c.SendRequest, asked: c.Message | None = None
) -> c.SendResponse:
    connection = chat_connection(ctx)
    client = None
    if connection.kind != "none" and connection.base_url and connection.model:
        client = ChatClient(
            connection.kind,
            connection.base_url,
            connection.model,
            ctx.services.credentials.get(CHAT_API_KEY),
            connection.timeout_s,
        )

    def emit(message_id: str, delta: str) -> None:
        ctx.services.notify(
            NOTIFY_CHAT.name,
            c.ChatDelta(
                request_id=request.request_id, message_id=message_id, delta=delta
            ).to_wire(),
        )

    def step(message_id: str, at: c.ChatStep, found: list[c.Citation] | None) -> None:
        delta = c.ChatDelta(
            request_id=request.request_id,
            message_id=message_id,
            delta="",
            step=at,
            passages=None if found is None else len(found),
            citations=found,
        )
        ctx.services.notify(NOTIFY_CHAT.name, delta.to_wire())

    runtime = ChatRuntime(
        ctx.db.get(),
        retriever(ctx),
        ctx.services.scopes,
        client,
        emit,
        ctx.services.diagnostics,
        request.mode,
        step,
    )
    with _ANSWERING_LOCK:
        _ANSWERING[request.conversation_id] = _ANSWERING.get(request.conversation_id, 0) + 1
    try:
        with ctx.services.request(request.request_id) as cancel:
            return runtime.send(request, cancel, asked)
    finally:
        with _ANSWERING_LOCK:
            _ANSWERING[request.conversation_id] -= 1
            if not _ANSWERING[request.conversation_id]:
                del _ANSWERING[request.conversation_id]


@handles(CHAT_REGENERATE)
def regenerate(ctx: CallContext, request: RegenerateRequest) -> c.SendResponse:
    """The last question asked again with the conversation's kept scope and mode: a new
    retrieval, a new answer streamed like `chat:send`."""
    conn = ctx.db.get()
    conversation = store.get_conversation(conn, request.conversation_id)
    messages = store.list_messages(conn, request.conversation_id)
    questions = [i for i, m in enumerate(messages) if m.role == "user"]
    if not questions:
        raise InvalidRequestError("this conversation has no question to answer again")
    question = messages[questions[-1]]
    answers = messages[questions[-1] + 1 :]
    with _ANSWERING_LOCK:
        # Only an answer being written now; one left "streaming" by an earlier session that
        # stopped mid-answer is exactly what a person would want replaced.
        if conversation.id in _ANSWERING:
            raise ConflictError("the last answer is still being written; stop it first")
    library_ids, mode = _kept_scope(conversation, answers, [x.id for x in libraries.list_all(conn)])
    send_request = c.SendRequest(
        conversation_id=conversation.id,
        text=question.content,
        library_ids=library_ids,
        mode=mode,
        request_id=request.request_id,
    )
    # The old answer goes once the new one is complete, rather than staying beside it: the
    # transcript, the history the model reads for the next question, and an export all hold
    # one answer per question, each with the one citation numbering its [n] refer to. A new
    # answer that failed or was stopped goes instead while a complete one was there (a good
    # answer was lost to a model that could not be reached; a helper's try).
    response = _answer(ctx, send_request, asked=question)
    new = response.assistant_message
    if new.state != "complete" and any(a.state == "complete" for a in answers):
        store.delete_message(conn, new.id)
        raise UnavailableError(Reason("chat.regenerate_kept", reason=new.error or new.state))
    for answer in answers:
        store.delete_message(conn, answer.id)
    return response


def _kept_scope(
    conversation: c.Conversation, answers: list[c.Message], now: list[str]
) -> tuple[list[str], c.RetrievalMode]:
    """The conversation's kept scope among the libraries there are (``now``), as the window
    shows it (``c.scope_now``: a regenerate searched without the library the scope button
    already named; a helper's try). For one made before scopes were kept, what its last answer
    searched (or nothing, "model decides")."""
    if conversation.scope is not None:
        scope = conversation.scope
        return c.scope_now(scope.library_ids, scope.known_library_ids, now), scope.mode
    for answer in reversed(answers):
        if answer.retrieval is not None:
            return [i for i in answer.retrieval.library_ids if i in now], answer.retrieval.mode
    return [], "auto"
