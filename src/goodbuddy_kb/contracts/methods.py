"""The one table of IPC methods and notifications: name → request model, response model, mutates.

This table plays the role of Anki's ``.proto`` service: the backend registers exactly one handler
per entry (checked at start-up), and the GUI client and the CLI call through these constants.
No other module spells a method name as a string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import conversations as cv
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.chunks import (
    ChunkDeleteResponse,
    ChunkDetail,
    ChunkRequest,
    ChunksListRequest,
    ChunksListResponse,
    ChunkUpdateRequest,
    ChunkUpdateResponse,
    ReplacedDismissRequest,
    ReplacedDismissResponse,
)
from goodbuddy_kb.contracts.diagnostics import (
    DiagnosticsExportRequest,
    DiagnosticsExportResponse,
    DiagnosticsSummary,
    DiagnosticsSummaryRequest,
)
from goodbuddy_kb.contracts.external import (
    ExternalCallsRecordRequest,
    ExternalCallsRecordResponse,
    ExternalCallsSummaryRequest,
    ExternalCallsSummaryResponse,
    ExternalCancelRequest,
    ExternalLibrariesRequest,
    ExternalLibrariesResponse,
    ExternalReferenceRequest,
    ExternalSearchRequest,
    ExternalSearchResponse,
)
from goodbuddy_kb.contracts.library import (
    LibraryCreateRequest,
    LibraryCreateResponse,
    LibraryDeleteRequest,
    LibraryDeleteResponse,
    LibraryListRequest,
    LibraryListResponse,
    LibraryRenameRequest,
    LibraryRenameResponse,
    LibrarySettings,
    SettingsGetRequest,
    SettingsUpdateRequest,
)
from goodbuddy_kb.contracts.models import (
    EmbeddingGetRequest,
    EmbeddingInfo,
    EmbeddingTestRequest,
    EmbeddingTestResponse,
    EmbeddingUpdateRequest,
    ModelListRequest,
    ModelListResponse,
    RerankGetRequest,
    RerankInfo,
    RerankTestRequest,
    RerankTestResponse,
    RerankUpdateRequest,
    VectorIndexInfo,
    VectorRebuildRequest,
    VectorRebuildResponse,
    VectorStatusRequest,
)
from goodbuddy_kb.contracts.rebuild import (
    DocumentRebuildRequest,
    LibraryRebuildRequest,
    RebuildPreviewRequest,
    RebuildPreviewResponse,
    RebuildResponse,
)
from goodbuddy_kb.contracts.retrieval import (
    CancelRequest,
    CancelResponse,
    DocumentLocation,
    DocumentSourceRequest,
    KnowledgeRetrievalResponse,
    ReferenceContextResponse,
    ReferenceOpenResponse,
    ReferenceRequest,
    ReferenceStatesRequest,
    ReferenceStatesResponse,
    RetrieveRequest,
)
from goodbuddy_kb.contracts.sources import (
    DocumentListRequest,
    DocumentListResponse,
    DocumentRemoveRequest,
    DocumentRemoveResponse,
    SourceAddRequest,
    SourceAddResponse,
    SourceListRequest,
    SourceListResponse,
    SourceRemoveRequest,
    SourceRemoveResponse,
    SourceSyncRequest,
    SourceSyncResponse,
    SourceWatchRequest,
    SourceWatchResponse,
)
from goodbuddy_kb.contracts.system import (
    AboutInfo,
    AboutRequest,
    PingRequest,
    PingResponse,
    SampleLibraryRequest,
    SampleLibraryResponse,
)
from goodbuddy_kb.contracts.tasks import (
    TaskCancelRequest,
    TaskCancelResponse,
    TaskInfo,
    TaskListRequest,
    TaskListResponse,
)
from goodbuddy_kb.contracts.window import (
    WindowState,
    WindowStateGetRequest,
    WindowStateResponse,
    WindowStateUpdateRequest,
)

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)


@dataclass(frozen=True)
class MethodSpec(Generic[Req, Resp]):
    name: str
    request: type[Req]
    response: type[Resp]
    mutates: bool
    #: Callable on a connection of an external-tool client (the MCP server); nothing else is.
    external: bool = False


@dataclass(frozen=True)
class NotificationSpec(Generic[Req]):
    name: str
    params: type[Req]


SYSTEM_PING = MethodSpec("system:ping", PingRequest, PingResponse, mutates=False)
SYSTEM_ABOUT = MethodSpec("system:about", AboutRequest, AboutInfo, mutates=False)
LIBRARY_SAMPLE = MethodSpec(
    "knowledge:library:sample", SampleLibraryRequest, SampleLibraryResponse, mutates=True
)
LIBRARY_CREATE = MethodSpec(
    "knowledge:library:create", LibraryCreateRequest, LibraryCreateResponse, mutates=True
)
LIBRARY_LIST = MethodSpec(
    "knowledge:library:list", LibraryListRequest, LibraryListResponse, mutates=False
)
LIBRARY_RENAME = MethodSpec(
    "knowledge:library:rename", LibraryRenameRequest, LibraryRenameResponse, mutates=True
)
LIBRARY_DELETE = MethodSpec(
    "knowledge:library:delete", LibraryDeleteRequest, LibraryDeleteResponse, mutates=True
)
SETTINGS_GET = MethodSpec(
    "knowledge:settings:get", SettingsGetRequest, LibrarySettings, mutates=False
)
SETTINGS_UPDATE = MethodSpec(
    "knowledge:settings:update", SettingsUpdateRequest, LibrarySettings, mutates=True
)

SOURCE_ADD = MethodSpec("knowledge:source:add", SourceAddRequest, SourceAddResponse, mutates=True)
SOURCE_LIST = MethodSpec(
    "knowledge:source:list", SourceListRequest, SourceListResponse, mutates=False
)
SOURCE_REMOVE = MethodSpec(
    "knowledge:source:remove", SourceRemoveRequest, SourceRemoveResponse, mutates=True
)
SOURCE_SYNC = MethodSpec(
    "knowledge:source:sync", SourceSyncRequest, SourceSyncResponse, mutates=True
)
SOURCE_WATCH = MethodSpec(
    "knowledge:source:watch", SourceWatchRequest, SourceWatchResponse, mutates=True
)
DOCUMENTS_LIST = MethodSpec(
    "knowledge:documents:list", DocumentListRequest, DocumentListResponse, mutates=False
)
DOCUMENT_REBUILD = MethodSpec(
    "knowledge:document:rebuild", DocumentRebuildRequest, RebuildResponse, mutates=True
)
LIBRARY_REBUILD = MethodSpec(
    "knowledge:library:rebuild", LibraryRebuildRequest, RebuildResponse, mutates=True
)
REBUILD_PREVIEW = MethodSpec(
    "knowledge:rebuild:preview", RebuildPreviewRequest, RebuildPreviewResponse, mutates=False
)
CHUNKS_LIST = MethodSpec(
    "knowledge:chunks:list", ChunksListRequest, ChunksListResponse, mutates=False
)
CHUNK_GET = MethodSpec("knowledge:chunk:get", ChunkRequest, ChunkDetail, mutates=False)
CHUNK_UPDATE = MethodSpec(
    "knowledge:chunk:update", ChunkUpdateRequest, ChunkUpdateResponse, mutates=True
)
CHUNK_DELETE = MethodSpec("knowledge:chunk:delete", ChunkRequest, ChunkDeleteResponse, mutates=True)
CHUNKS_DISMISS_REPLACED = MethodSpec(
    "knowledge:chunks:dismissReplaced",
    ReplacedDismissRequest,
    ReplacedDismissResponse,
    mutates=True,
)
TASKS_LIST = MethodSpec("knowledge:tasks:list", TaskListRequest, TaskListResponse, mutates=False)
TASKS_CANCEL = MethodSpec(
    "knowledge:tasks:cancel", TaskCancelRequest, TaskCancelResponse, mutates=True
)
EMBEDDING_GET = MethodSpec(
    "models:embedding:get", EmbeddingGetRequest, EmbeddingInfo, mutates=False
)
EMBEDDING_UPDATE = MethodSpec(
    "models:embedding:update", EmbeddingUpdateRequest, EmbeddingInfo, mutates=True
)
EMBEDDING_TEST = MethodSpec(
    "models:embedding:test", EmbeddingTestRequest, EmbeddingTestResponse, mutates=False
)
MODELS_LIST = MethodSpec("models:list", ModelListRequest, ModelListResponse, mutates=False)
VECTORS_STATUS = MethodSpec(
    "knowledge:vectors:status", VectorStatusRequest, VectorIndexInfo, mutates=False
)
VECTORS_REBUILD = MethodSpec(
    "knowledge:vectors:rebuild", VectorRebuildRequest, VectorRebuildResponse, mutates=True
)
RERANK_GET = MethodSpec("models:rerank:get", RerankGetRequest, RerankInfo, mutates=False)
RERANK_UPDATE = MethodSpec("models:rerank:update", RerankUpdateRequest, RerankInfo, mutates=True)
#: Connection tests call a model for up to a few seconds and save nothing: off the writer thread.
RERANK_TEST = MethodSpec("models:rerank:test", RerankTestRequest, RerankTestResponse, mutates=False)
RETRIEVE = MethodSpec(
    "knowledge:retrieve", RetrieveRequest, KnowledgeRetrievalResponse, mutates=False
)
SYSTEM_CANCEL = MethodSpec("system:cancel", CancelRequest, CancelResponse, mutates=False)
DIAGNOSTICS_SUMMARY = MethodSpec(
    "system:diagnostics:summary", DiagnosticsSummaryRequest, DiagnosticsSummary, mutates=False
)
#: Writes a file but changes nothing the backend keeps: off the writer thread.
DIAGNOSTICS_EXPORT = MethodSpec(
    "system:diagnostics:export",
    DiagnosticsExportRequest,
    DiagnosticsExportResponse,
    mutates=False,
)
REFERENCE_CONTEXT = MethodSpec(
    "knowledge:reference:context", ReferenceRequest, ReferenceContextResponse, mutates=False
)
REFERENCE_OPEN = MethodSpec(
    "knowledge:reference:open", ReferenceRequest, ReferenceOpenResponse, mutates=False
)
#: Whether each citation of an answer still stands as cited (changed, or gone): the ids are
#: re-checked as ``knowledge:reference:context`` does; a library gone reads as "gone".
REFERENCE_STATES = MethodSpec(
    "knowledge:reference:states", ReferenceStatesRequest, ReferenceStatesResponse, mutates=False
)
#: A document's own source by ids (a failed document too): open it, show it in its folder, or
#: say where it is (for "copy path" when nothing can open it).
DOCUMENT_OPEN = MethodSpec(
    "knowledge:document:open", DocumentSourceRequest, ReferenceOpenResponse, mutates=False
)
DOCUMENT_REVEAL = MethodSpec(
    "knowledge:document:reveal", DocumentSourceRequest, ReferenceOpenResponse, mutates=False
)
DOCUMENT_LOCATE = MethodSpec(
    "knowledge:document:locate", DocumentSourceRequest, DocumentLocation, mutates=False
)
#: Remove one document (a folder's file is excluded from the folder's syncs from now on).
DOCUMENT_REMOVE = MethodSpec(
    "knowledge:document:remove", DocumentRemoveRequest, DocumentRemoveResponse, mutates=True
)
#: Where the person was in the window, kept with the data directory.
WINDOW_STATE_GET = MethodSpec(
    "system:window:get", WindowStateGetRequest, WindowStateResponse, mutates=False
)
WINDOW_STATE_UPDATE = MethodSpec(
    "system:window:update", WindowStateUpdateRequest, WindowState, mutates=True
)
CHAT_MODEL_GET = MethodSpec("models:chat:get", c.ChatGetRequest, c.ChatInfo, mutates=False)
CHAT_MODEL_UPDATE = MethodSpec("models:chat:update", c.ChatUpdateRequest, c.ChatInfo, mutates=True)
CHAT_MODEL_TEST = MethodSpec(
    "models:chat:test", c.ChatTestRequest, c.ChatTestResponse, mutates=False
)
CONVERSATION_CREATE = MethodSpec(
    "chat:conversation:create", c.ConversationCreateRequest, c.Conversation, mutates=True
)
CONVERSATION_LIST = MethodSpec(
    "chat:conversation:list", c.ConversationListRequest, c.ConversationListResponse, mutates=False
)
CONVERSATION_DELETE = MethodSpec(
    "chat:conversation:delete",
    c.ConversationDeleteRequest,
    c.ConversationDeleteResponse,
    mutates=True,
)
CONVERSATION_SCOPE_UPDATE = MethodSpec(
    "chat:conversation:scope:update",
    c.ConversationScopeUpdateRequest,
    c.Conversation,
    mutates=True,
)
CONVERSATION_RESTORE = MethodSpec(
    "chat:conversation:restore", c.ConversationRestoreRequest, c.Conversation, mutates=True
)
CONVERSATION_RENAME = MethodSpec(
    "chat:conversation:rename", c.ConversationRenameRequest, c.Conversation, mutates=True
)
CONVERSATION_PIN = MethodSpec(
    "chat:conversation:pin", c.ConversationPinRequest, c.Conversation, mutates=True
)
#: Writes a file but changes nothing the backend keeps: off the writer thread.
CONVERSATION_EXPORT = MethodSpec(
    "chat:conversation:export",
    cv.ConversationExportRequest,
    cv.ConversationExportResponse,
    mutates=False,
)
MESSAGE_COPY = MethodSpec(
    "chat:message:copy", cv.MessageCopyRequest, cv.MessageCopyResponse, mutates=False
)
MESSAGES_LIST = MethodSpec(
    "chat:messages:list", c.MessagesListRequest, c.MessagesListResponse, mutates=False
)
GRAPH_GET = MethodSpec("knowledge:graph:get", g.GraphGetRequest, g.GraphInfo, mutates=False)
GRAPH_UPDATE = MethodSpec("knowledge:graph:update", g.GraphUpdateRequest, g.GraphInfo, mutates=True)
GRAPH_ENTITIES = MethodSpec(
    "knowledge:graph:entities", g.EntitiesListRequest, g.EntitiesListResponse, mutates=False
)
GRAPH_ENTITY = MethodSpec(
    "knowledge:graph:entity", g.EntityGetRequest, g.EntityDetail, mutates=False
)
GRAPH_RELATIONS = MethodSpec(
    "knowledge:graph:relations", g.RelationsListRequest, g.RelationsListResponse, mutates=False
)
GRAPH_EXTRACT = MethodSpec(
    "knowledge:graph:extract", g.GraphExtractRequest, g.GraphExtractResponse, mutates=True
)
GRAPH_ENTITY_CREATE = MethodSpec(
    "knowledge:graph:entity:create", g.EntityCreateRequest, g.EntityDetail, mutates=True
)
GRAPH_ENTITY_UPDATE = MethodSpec(
    "knowledge:graph:entity:update", g.EntityUpdateRequest, g.EntityDetail, mutates=True
)
GRAPH_ENTITY_MERGE = MethodSpec(
    "knowledge:graph:entity:merge", g.EntityMergeRequest, g.EntityDetail, mutates=True
)
GRAPH_ENTITY_DELETE = MethodSpec(
    "knowledge:graph:entity:delete", g.EntityDeleteRequest, g.EntityDeleteResponse, mutates=True
)
GRAPH_RELATION_CREATE = MethodSpec(
    "knowledge:graph:relation:create", g.RelationCreateRequest, g.Relation, mutates=True
)
GRAPH_RELATION_UPDATE = MethodSpec(
    "knowledge:graph:relation:update", g.RelationUpdateRequest, g.Relation, mutates=True
)
GRAPH_RELATION_DELETE = MethodSpec(
    "knowledge:graph:relation:delete",
    g.RelationDeleteRequest,
    g.RelationDeleteResponse,
    mutates=True,
)
GRAPH_NEIGHBOURHOOD = MethodSpec(
    "knowledge:graph:neighbourhood",
    g.NeighbourhoodRequest,
    g.NeighbourhoodResponse,
    mutates=False,
)
#: Not a "mutation" for the writer thread: a reply streams for seconds and must not block writes.
CHAT_SEND = MethodSpec("chat:send", c.SendRequest, c.SendResponse, mutates=False)
CHAT_REGENERATE = MethodSpec("chat:regenerate", cv.RegenerateRequest, c.SendResponse, mutates=False)

# External AI tools (the MCP server). Exposure is re-checked by the backend on every call.
EXTERNAL_LIBRARIES = MethodSpec(
    "external:libraries",
    ExternalLibrariesRequest,
    ExternalLibrariesResponse,
    mutates=False,
    external=True,
)
EXTERNAL_SEARCH = MethodSpec(
    "external:search", ExternalSearchRequest, ExternalSearchResponse, mutates=False, external=True
)
EXTERNAL_CANCEL = MethodSpec(
    "external:cancel", ExternalCancelRequest, CancelResponse, mutates=False, external=True
)
EXTERNAL_REFERENCE = MethodSpec(
    "external:reference",
    ExternalReferenceRequest,
    ReferenceContextResponse,
    mutates=False,
    external=True,
)
#: Writes only the bounded call record (tool, outcome, latency), never knowledge.
EXTERNAL_CALLS_RECORD = MethodSpec(
    "external:calls:record",
    ExternalCallsRecordRequest,
    ExternalCallsRecordResponse,
    mutates=True,
    external=True,
)
EXTERNAL_CALLS_SUMMARY = MethodSpec(
    "external:calls:summary",
    ExternalCallsSummaryRequest,
    ExternalCallsSummaryResponse,
    mutates=False,
)

#: Every method above, in the order defined (a method is in the table by being defined here).
METHODS: Mapping[str, MethodSpec[Any, Any]] = {
    spec.name: spec for spec in list(globals().values()) if isinstance(spec, MethodSpec)
}


class ChangedParams(ContractModel):
    """Sent after every successful mutation so each screen can decide whether to refresh."""

    method: str
    library_ids: list[str]
    libraries: bool = False
    settings: bool = False
    sources: bool = False
    documents: bool = False
    #: The external-tool call record grew (the MCP panel refreshes its counts).
    external_calls: bool = False


NOTIFY_CHANGED = NotificationSpec("notify:changed", ChangedParams)

#: Task progress: sent when a task is queued, starts, advances (throttled) and ends.
NOTIFY_TASK = NotificationSpec("notify:task", TaskInfo)

#: Streaming chat tokens.
NOTIFY_CHAT = NotificationSpec("notify:chat", c.ChatDelta)

NOTIFICATIONS: Mapping[str, NotificationSpec[Any]] = {
    spec.name: spec for spec in (NOTIFY_CHANGED, NOTIFY_TASK, NOTIFY_CHAT)
}
