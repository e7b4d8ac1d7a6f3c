"""Contracts of the chat runtime: conversations, messages, request scope, modes, citations."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field, model_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.limits import MAX_CITATIONS_PER_MESSAGE, MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.messages import code_fields
from goodbuddy_kb.contracts.models import ServiceRequest

ChatKind = Literal["none", "openai-compatible", "ollama"]
RetrievalMode = Literal["auto", "always"]
RetrievalStatus = Literal["none", "searched", "searched_empty", "degraded"]
MessageState = Literal["complete", "streaming", "stopped", "failed"]
#: Longest message a user may send, in characters.
MAX_MESSAGE_CHARACTERS = 16_000


#: What an answer says when no chat model is configured (stored in both languages, "zh / en";
#: the GUI shows the half in the user's language, the CLI both): evidence follows, nothing was
#: searched in "model decides" mode, the search found nothing relevant, no library was chosen.
NO_CHAT_MODEL_NOTES = (
    "未配置对话模型；以下是知识库中的相关内容。/ No chat model is configured; here is what your "
    "libraries say:",
    "未配置对话模型，且在“模型按需检索”模式下没有进行检索。/ No chat model is configured, and "
    "in “model decides” mode nothing was searched. Choose “always retrieve first” to see what "
    "your libraries say.",
    "未配置对话模型；已检索，未找到相关内容。/ No chat model is configured; the search found "
    "nothing relevant.",
    "未配置对话模型，且本对话的知识范围中没有选择任何知识库，因此没有检索。/ No chat model is "
    "configured, and no library is selected in this chat's knowledge scope, so nothing was "
    "searched.",
)


#: The chat model failed before it wrote anything: the search's evidence is the answer.
MODEL_FAILED_NOTE = (
    "对话模型没有回答（原因见下）；以下是知识库中的相关内容。/ The chat model did not answer"
    " (the reason is below); here is what your libraries say:"
)


#: How every answer the app writes itself begins (never a model's words).
APP_NOTES = (*NO_CHAT_MODEL_NOTES, MODEL_FAILED_NOTE)


def in_one_language(content: str, language: str) -> str:
    """``content`` with a leading no-chat-model note reduced to its ``zh`` or ``en`` half."""
    for note in APP_NOTES:
        if content.startswith(note):
            zh, en = note.split("/ ", 1)
            return (zh if language == "zh" else en) + content[len(note) :]
    return content


class ChatConnection(ContractModel):
    kind: ChatKind = "none"
    base_url: str | None = Field(None, max_length=2_000)
    model: str | None = Field(None, max_length=200)
    timeout_s: float = Field(60.0, ge=1.0, le=600.0)

    @model_validator(mode="after")
    def _remote_needs_endpoint(self) -> ChatConnection:
        if self.kind != "none" and not (self.base_url and self.model):
            raise ValueError("the service address and the model are required for a chat model")
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("the service address must start with http:// or https://")
        return self


class ChatInfo(ContractModel):
    connection: ChatConnection
    has_api_key: bool
    #: The origin the stored key was saved for (``models.service_origin``); None without a key
    key_origin: str | None = None


class ChatGetRequest(ContractModel):
    pass


class ChatUpdateRequest(ServiceRequest):
    connection: ChatConnection
    api_key: str | None = Field(None, max_length=4_000)


class ChatTestRequest(ServiceRequest):
    """Tests this chat connection with a tiny real request; nothing is saved. Omitted fields
    mean the saved connection and the stored key; "" as the key tests without one."""

    connection: ChatConnection | None = None
    api_key: str | None = Field(None, max_length=4_000)


class ChatTestResponse(ContractModel):
    ok: bool
    #: The model named in the answer (or the configured one when the answer names none).
    model: str | None
    #: The start of what it answered (may be empty: a reasoning model can spend its few tokens).
    reply: str | None
    latency_ms: float | None
    error: str | None
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("error")


class Citation(ContractModel):
    """A passage an answer may cite. ``number`` is the [n] the model was given it under, in
    this answer's turn (a message's citations are kept in that order); ``None`` for a citation
    stored before the numbers were kept, whose markers are therefore not links."""

    number: int | None = Field(None, ge=1, le=MAX_CITATIONS_PER_MESSAGE)
    library_id: EntityId
    document_id: EntityId
    chunk_id: EntityId
    relevance: float
    channels: list[str]
    document_title: str
    locator: dict[str, Any]
    snippet: str
    #: The document's path inside its source ("" for a citation stored before it was kept).
    document_path: str = ""
    #: The checksum of the chunk's text when cited ("" before it was kept): an edit since is
    #: told apart from the text the answer used.
    checksum: str = ""


#: A citation marker [n] in an answer's text.
CITATION_MARKER = re.compile(r"\[(\d{1,3})\]")


def unknown_markers(content: str, citations: Sequence[Citation]) -> list[int]:
    """The numbers of the markers [n] in ``content`` that none of ``citations`` has; none for
    an answer stored before citations kept their numbers."""
    if any(x.number is None for x in citations):
        return []
    numbers = {x.number for x in citations}
    return sorted({int(n) for n in CITATION_MARKER.findall(content)} - numbers)


class RetrievalState(ContractModel):
    """What the message may truthfully say about retrieval."""

    mode: RetrievalMode
    status: RetrievalStatus
    reason: str | None = None
    library_ids: list[EntityId] = Field(default_factory=list)
    searches: int = 0
    #: Of ``searches``, those of the question's parts before the answer (a question about
    #: several things: each searched too), not the model's own.
    parts: int = 0
    #: The passages those searches added to the whole question's.
    parts_found: int = 0
    #: "Model decides", and the model failed before it searched: the app searched in its place
    #: (labelled "searched first" and recorded as "always", though the person chose the other
    #: mode; a helper's try).
    fallback: bool = False
    reason_code: str | None = None
    reason_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("reason")


class Message(ContractModel):
    id: EntityId
    conversation_id: EntityId
    role: Literal["user", "assistant"]
    content: str
    state: MessageState
    retrieval: RetrievalState | None
    citations: list[Citation] = Field(max_length=MAX_CITATIONS_PER_MESSAGE)
    error: str | None
    created_at: str
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("error")


#: Longest conversation search query, in characters.
MAX_CONVERSATION_QUERY_CHARACTERS = 200
#: Longest snippet shown for a conversation search hit, in characters.
MAX_SNIPPET_CHARACTERS = 160


def _clean_title(value: str) -> str:
    value = " ".join(value.split())
    if not value:
        raise ValueError("must not be empty")
    if len(value) > 200:
        raise ValueError("must be at most 200 characters")
    return value


#: A conversation title a person gives: whitespace collapsed, 1–200 characters.
ConversationTitle = Annotated[str, Field(max_length=800), AfterValidator(_clean_title)]

#: Most libraries a conversation's scope remembers having seen (the ones a person chose among).
MAX_KNOWN_LIBRARIES = 10_000


class ChatScope(ContractModel):
    """A conversation's knowledge scope, kept with it: the libraries it searches, the mode, and
    the libraries the choice was made among (a library created later joins the scope; one the
    person cleared stays cleared, US-A3)."""

    library_ids: Annotated[list[EntityId], Field(max_length=MAX_LIBRARIES_PER_REQUEST)] = Field(
        default_factory=list
    )
    known_library_ids: Annotated[list[EntityId], Field(max_length=MAX_KNOWN_LIBRARIES)] = Field(
        default_factory=list
    )
    mode: RetrievalMode = "auto"


def scope_now(selected: Collection[str], known: Collection[str], now: Sequence[str]) -> list[str]:
    """The libraries a kept scope searches among ``now`` (the libraries there are, in list
    order), as the window shows it and a regenerate searches it: a deleted library leaves it;
    libraries created since join a scope that held every library it knew (one the person never
    narrowed), in list order while there is room. A scope the person narrowed or emptied stays
    as they left it."""
    present = set(now)
    kept = [i for i in selected if i in present]
    if set(known) <= set(selected):
        room = MAX_LIBRARIES_PER_REQUEST - len(kept)
        kept += [i for i in now if i not in known and i not in kept][: max(0, room)]
    return kept


class Conversation(ContractModel):
    id: EntityId
    title: str
    created_at: str
    #: The last activity: a new message (or a regenerated answer) moves it forward.
    updated_at: str
    #: None for a conversation made before scopes were kept (the chat keeps its current one).
    scope: ChatScope | None = None
    #: Pinned conversations list first.
    pinned: bool = False
    #: The title is still the one made from the first question (False once renamed).
    title_is_default: bool = True
    message_count: int = 0
    #: The chat model named by the newest answer (None before any answer, or without a model).
    chat_model: str | None = None
    #: When listed with a query: the matching text around the hit (at most
    #: ``MAX_SNIPPET_CHARACTERS``); None otherwise.
    snippet: str | None = None


class ConversationCreateRequest(ContractModel):
    title: str = Field("New chat", min_length=1, max_length=200)
    scope: ChatScope | None = None


class ConversationScopeUpdateRequest(ContractModel):
    conversation_id: EntityId
    scope: ChatScope


class ConversationListRequest(ContractModel):
    """The conversations, pinned first, then newest activity first. With ``query``: only those
    whose title or message text matches it (full-text, Chinese included), each with a snippet."""

    query: str = Field("", max_length=MAX_CONVERSATION_QUERY_CHARACTERS)
    limit: int = Field(200, ge=1, le=1_000)


class ConversationListResponse(ContractModel):
    conversations: list[Conversation]


class ConversationDeleteRequest(ContractModel):
    conversation_id: EntityId


class ConversationDeleteResponse(ContractModel):
    """A deleted conversation is hidden until restored or until the backend next starts, when
    it is purged for good (undo "within the session")."""

    conversation_id: EntityId


class ConversationRestoreRequest(ContractModel):
    conversation_id: EntityId


class ConversationRenameRequest(ContractModel):
    conversation_id: EntityId
    title: ConversationTitle


class ConversationPinRequest(ContractModel):
    conversation_id: EntityId
    pinned: bool


class MessagesListRequest(ContractModel):
    conversation_id: EntityId


class MessagesListResponse(ContractModel):
    messages: list[Message]


class SendRequest(ContractModel):
    conversation_id: EntityId
    text: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARACTERS)
    library_ids: Annotated[list[EntityId], Field(max_length=MAX_LIBRARIES_PER_REQUEST)] = Field(
        default_factory=list
    )
    mode: RetrievalMode = "auto"
    kind: Literal["text", "image"] = "text"
    request_id: EntityId | None = None


class SendResponse(ContractModel):
    user_message: Message
    assistant_message: Message


#: Where a reply is before its first words: searching the libraries, or waiting for the model.
ChatStep = Literal["searching", "waiting"]


class ChatDelta(ContractModel):
    """A streamed piece of an assistant reply, or (``step``, with no text) where the reply is
    before its first words: 4–8 s showed only "Assistant" and a cursor (a helper's try)."""

    request_id: str | None
    message_id: EntityId
    delta: str
    step: ChatStep | None = None
    #: With ``waiting``: the passages the turn's searches have given the model so far.
    passages: int | None = Field(None, ge=0, le=MAX_CITATIONS_PER_MESSAGE)
    #: With ``waiting``: those passages as citations, listed while the model thinks (the
    #: sources list stayed empty until the whole answer came; a helper's try).
    citations: list[Citation] | None = Field(None, max_length=MAX_CITATIONS_PER_MESSAGE)
