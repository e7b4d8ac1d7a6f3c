"""Contracts of the `external:*` methods: what an external AI tool may see through `goodbuddy-kb mcp`.

The backend enforces every rule here on every call, whatever the client: only libraries the user
switched on ("available to external AI tools") are visible; a ``scope`` (the server's
``--library`` flags) can only narrow that set; nothing writes except the bounded call record,
which holds counts, outcomes and latencies and never a query or an argument. A library that is
not exposed and one that does not exist get the same answer, so a client cannot probe names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Literal, Protocol, TypeVar

from pydantic import Field, field_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.limits import (
    MAX_LIBRARIES_PER_REQUEST,
    MAX_LIBRARY_NAME_CHARACTERS,
    MAX_QUERY_CHARACTERS,
    MAX_TOP_K,
)
from goodbuddy_kb.contracts.models import VectorIndexState
from goodbuddy_kb.contracts.retrieval import DegradedChannel, KnowledgeRetrievalResponse

#: The tools of the MCP server, as the call record names them.
ExternalTool = Literal["list_libraries", "knowledge_search", "get_reference_context"]
EXTERNAL_TOOLS: tuple[ExternalTool, ...] = (
    "list_libraries",
    "knowledge_search",
    "get_reference_context",
)
#: Results an external search returns when the caller does not say.
DEFAULT_EXTERNAL_TOP_K = 8
#: Most call records one `external:calls:record` request carries.
MAX_CALLS_PER_RECORD = 200

#: A library named by id or by exact name (case-insensitive when unambiguous).
LibraryRef = Annotated[str, Field(min_length=1, max_length=MAX_LIBRARY_NAME_CHARACTERS * 4)]
Scope = Annotated[list[LibraryRef], Field(min_length=1, max_length=MAX_LIBRARIES_PER_REQUEST)]

_CITATION = re.compile(r"^([0-9a-f]{32}):([0-9a-f]{32}):([0-9a-f]{32})$")
CITATION_FORMAT = "LIBRARY_ID:DOCUMENT_ID:CHUNK_ID (three 32-character hex ids)"


class _Named(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...


NamedT = TypeVar("NamedT", bound=_Named)


def match_library(candidates: Sequence[NamedT], ref: str) -> NamedT | None:
    """The library ``ref`` names: by id or exact name, else by name in any case when only one
    candidate has it (the rule for `libraries` and for the MCP server's ``--library``)."""
    ref = ref.strip()
    for library in candidates:
        if ref in (library.id, library.name):
            return library
    folded = [lib for lib in candidates if lib.name.casefold() == ref.casefold()]
    return folded[0] if len(folded) == 1 else None


def citation_id(library_id: str, document_id: str, chunk_id: str) -> str:
    """The one string an external tool keeps to come back to a passage."""
    return f"{library_id}:{document_id}:{chunk_id}"


def parse_citation_id(value: str) -> tuple[str, str, str] | None:
    """(library, document, chunk) ids, or None when ``value`` is not a citation id."""
    match = _CITATION.match(value.strip().lower())
    return (match.group(1), match.group(2), match.group(3)) if match else None


class ExternalLibraryRef(ContractModel):
    id: EntityId
    name: str


class ExternalIndexState(ContractModel):
    """What a client needs to judge an answer: is full-text ready, how much is vectorised, and
    which channels would run degraded right now (with the reason)."""

    fulltext_ready: bool
    documents_pending: int
    documents_failed: int
    vector_state: VectorIndexState
    vectorized_chunks: int
    retrievable_chunks: int
    vector_coverage: float = Field(ge=0.0, le=1.0)
    degraded_channels: list[DegradedChannel]


class ExternalLibrary(ContractModel):
    id: EntityId
    name: str
    document_count: int
    chunk_count: int
    index: ExternalIndexState


class ExternalLibrariesRequest(ContractModel):
    scope: Scope | None = None


class ExternalLibrariesResponse(ContractModel):
    libraries: list[ExternalLibrary]


class ExternalSearchRequest(ContractModel):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARACTERS)
    #: Names or ids; omitted means every exposed library (inside the scope).
    libraries: (
        Annotated[list[LibraryRef], Field(min_length=1, max_length=MAX_LIBRARIES_PER_REQUEST)]
        | None
    ) = None
    top_k: int = Field(DEFAULT_EXTERNAL_TOP_K, ge=1, le=MAX_TOP_K)
    scope: Scope | None = None
    #: A client-chosen id that `external:cancel` can name while the search runs.
    request_id: EntityId | None = None

    @field_validator("query")
    @classmethod
    def _has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain text, not only spaces")
        return value


class ExternalSearchResponse(ContractModel):
    libraries: list[ExternalLibraryRef]
    retrieval: KnowledgeRetrievalResponse


class ExternalCancelRequest(ContractModel):
    """Stops an `external:search` of this client's (by its ``request_id``); the search then
    answers ``cancelled``. Only external searches can be named, never another client's work."""

    request_id: EntityId


class ExternalReferenceRequest(ContractModel):
    citation_id: str = Field(min_length=1, max_length=200)
    scope: Scope | None = None


class ExternalCall(ContractModel):
    """One finished tool call: never its arguments."""

    tool: ExternalTool
    ok: bool
    error_code: str | None = Field(None, max_length=40, pattern=r"^[a-z_]+$")
    ms: float = Field(ge=0.0, le=3_600_000.0)


class ExternalCallsRecordRequest(ContractModel):
    calls: list[ExternalCall] = Field(min_length=1, max_length=MAX_CALLS_PER_RECORD)


class ExternalCallsRecordResponse(ContractModel):
    recorded: int


class ExternalCallsSummaryRequest(ContractModel):
    pass


class ExternalToolStats(ContractModel):
    tool: ExternalTool
    calls: int
    errors: int
    p50_ms: float | None
    last_at: str | None


class ExternalCallsSummaryResponse(ContractModel):
    """Counts over the kept records (the newest ``MAX_EXTERNAL_CALL_RECORDS`` calls)."""

    tools: list[ExternalToolStats]
    total_calls: int
    total_errors: int
    since: str | None
    exposed_libraries: int
