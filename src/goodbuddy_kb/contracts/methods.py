"""The one table of IPC methods and notifications: name → request model, response model, mutates.

This table plays the role of Anki's ``.proto`` service: the backend registers exactly one handler
per entry (checked at start-up), and the GUI client and the CLI call through these constants.
No other module spells a method name as a string.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.chat import (
    ChatDelta,
    ChatGetRequest,
    ChatInfo,
    ChatTestRequest,
    ChatTestResponse,
    ChatUpdateRequest,
    ConversationCreateRequest,
    ConversationDeleteRequest,
    ConversationDeleteResponse,
    ConversationListRequest,
    ConversationListResponse,
    ConversationScopeUpdateRequest,
    MessagesListRequest,
    MessagesListResponse,
    SendRequest,
    SendResponse,
)
from goodbuddy_kb.contracts.chat import Conversation as ConversationModel
from goodbuddy_kb.contracts.chunks import (
    ChunkDeleteResponse,
    ChunkDetail,
    ChunkRequest,
    ChunksListRequest,
    ChunksListResponse,
    ChunkUpdateRequest,
    ChunkUpdateResponse,
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
    RetrieveRequest,
)
from goodbuddy_kb.contracts.sources import (
    DocumentListRequest,
    DocumentListResponse,
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
#: Where the person was in the window, kept with the data directory.
WINDOW_STATE_GET = MethodSpec(
    "system:window:get", WindowStateGetRequest, WindowStateResponse, mutates=False
)
WINDOW_STATE_UPDATE = MethodSpec(
    "system:window:update", WindowStateUpdateRequest, WindowState, mutates=True
)
CHAT_MODEL_GET = MethodSpec("models:chat:get", ChatGetRequest, ChatInfo, mutates=False)
CHAT_MODEL_UPDATE = MethodSpec("models:chat:update", ChatUpdateRequest, ChatInfo, mutates=True)
CHAT_MODEL_TEST = MethodSpec("models:chat:test", ChatTestRequest, ChatTestResponse, mutates=False)
CONVERSATION_CREATE = MethodSpec(
    "chat:conversation:create", ConversationCreateRequest, ConversationModel, mutates=True
)
CONVERSATION_LIST = MethodSpec(
    "chat:conversation:list", ConversationListRequest, ConversationListResponse, mutates=False
)
CONVERSATION_DELETE = MethodSpec(
    "chat:conversation:delete", ConversationDeleteRequest, ConversationDeleteResponse, mutates=True
)
CONVERSATION_SCOPE_UPDATE = MethodSpec(
    "chat:conversation:scope:update",
    ConversationScopeUpdateRequest,
    ConversationModel,
    mutates=True,
)
MESSAGES_LIST = MethodSpec(
    "chat:messages:list", MessagesListRequest, MessagesListResponse, mutates=False
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
CHAT_SEND = MethodSpec("chat:send", SendRequest, SendResponse, mutates=False)

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

METHODS: Mapping[str, MethodSpec[Any, Any]] = {
    spec.name: spec
    for spec in (
        SYSTEM_PING,
        SYSTEM_ABOUT,
        LIBRARY_SAMPLE,
        LIBRARY_CREATE,
        LIBRARY_LIST,
        LIBRARY_RENAME,
        LIBRARY_DELETE,
        SETTINGS_GET,
        SETTINGS_UPDATE,
        SOURCE_ADD,
        SOURCE_LIST,
        SOURCE_REMOVE,
        SOURCE_SYNC,
        SOURCE_WATCH,
        DOCUMENTS_LIST,
        DOCUMENT_REBUILD,
        LIBRARY_REBUILD,
        REBUILD_PREVIEW,
        CHUNKS_LIST,
        CHUNK_GET,
        CHUNK_UPDATE,
        CHUNK_DELETE,
        TASKS_LIST,
        TASKS_CANCEL,
        EMBEDDING_GET,
        EMBEDDING_UPDATE,
        EMBEDDING_TEST,
        MODELS_LIST,
        VECTORS_STATUS,
        VECTORS_REBUILD,
        RERANK_GET,
        RERANK_UPDATE,
        RERANK_TEST,
        RETRIEVE,
        SYSTEM_CANCEL,
        DIAGNOSTICS_SUMMARY,
        DIAGNOSTICS_EXPORT,
        REFERENCE_CONTEXT,
        REFERENCE_OPEN,
        DOCUMENT_OPEN,
        DOCUMENT_REVEAL,
        DOCUMENT_LOCATE,
        WINDOW_STATE_GET,
        WINDOW_STATE_UPDATE,
        CHAT_MODEL_GET,
        CHAT_MODEL_UPDATE,
        CHAT_MODEL_TEST,
        CONVERSATION_CREATE,
        CONVERSATION_LIST,
        CONVERSATION_DELETE,
        CONVERSATION_SCOPE_UPDATE,
        MESSAGES_LIST,
        CHAT_SEND,
        EXTERNAL_LIBRARIES,
        EXTERNAL_SEARCH,
        EXTERNAL_CANCEL,
        EXTERNAL_REFERENCE,
        EXTERNAL_CALLS_RECORD,
        EXTERNAL_CALLS_SUMMARY,
        GRAPH_GET,
        GRAPH_UPDATE,
        GRAPH_ENTITIES,
        GRAPH_ENTITY,
        GRAPH_RELATIONS,
        GRAPH_EXTRACT,
        GRAPH_ENTITY_CREATE,
        GRAPH_ENTITY_UPDATE,
        GRAPH_ENTITY_MERGE,
        GRAPH_ENTITY_DELETE,
        GRAPH_RELATION_CREATE,
        GRAPH_RELATION_UPDATE,
        GRAPH_RELATION_DELETE,
        GRAPH_NEIGHBOURHOOD,
    )
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
NOTIFY_CHAT = NotificationSpec("notify:chat", ChatDelta)

NOTIFICATIONS: Mapping[str, NotificationSpec[Any]] = {
    spec.name: spec for spec in (NOTIFY_CHANGED, NOTIFY_TASK, NOTIFY_CHAT)
}
