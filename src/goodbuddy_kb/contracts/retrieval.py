"""Contracts of `knowledge:retrieve` (PRD §9.3) and the reference methods (PRD §7.7)."""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.limits import (
    MAX_CITATIONS_PER_MESSAGE,
    MAX_EXCLUDED_DOCUMENTS,
    MAX_LIBRARIES_PER_REQUEST,
    MAX_QUERY_CHARACTERS,
)
from goodbuddy_kb.contracts.messages import code_fields
from goodbuddy_kb.contracts.settings import FusionMethod, KnowledgeRetrievalSettings


def relevance_steps(p: float, steps: int) -> int:
    """How many whole 1/``steps`` a relevance reaches: cut, not rounded, so what is shown of a
    result below a floor never reads as reaching it (a float's last bit forgiven)."""
    return math.floor(p * steps + 1e-9)


def relevance_figure(p: float, digits: int = 2) -> str:
    """A relevance as shown beside a floor, cut to ``digits`` decimals ("the best match has
    relevance 0.20, below this library's minimum of 0.2" was a 0.199 rounded up)."""
    scale = 10**digits
    steps = relevance_steps(p, scale)
    if steps == 0 and p > 0:
        # under the least step, not none at all: "0.00" read as "no relevance whatsoever"
        # beside a full-text #1 that the floor kept out
        return f"<{1 / scale:.{digits}f}"
    return f"{steps / scale:.{digits}f}"


KnowledgeRetrievalChannel = Literal["fts", "cjk", "vector", "graph"]
RerankMode = Literal["off", "local", "learned"]
ZeroResultReason = Literal[
    "empty_library", "index_unavailable", "no_match", "filtered", "nothing_relevant"
]
ALL_CHANNELS: tuple[KnowledgeRetrievalChannel, ...] = ("fts", "cjk", "vector", "graph")


class RetrievalOverrides(ContractModel):
    """Per-call setting overrides; never saved. Merged over the library's settings and then
    validated as a whole."""

    top_k: int | None = None
    minimum_vector_similarity: float | None = None
    fts_weight: float | None = None
    vector_weight: float | None = None
    graph_weight: float | None = None
    candidate_multiplier: int | None = None
    context_max_characters: int | None = None
    adjacent_chunk_count: int | None = None
    local_rerank_enabled: bool | None = None
    minimum_relevance: float | None = None


class RetrieveRequest(ContractModel):
    library_ids: Annotated[
        list[EntityId], Field(min_length=1, max_length=MAX_LIBRARIES_PER_REQUEST)
    ]
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARACTERS)
    overrides: RetrievalOverrides | None = None
    channels: list[KnowledgeRetrievalChannel] | None = Field(None, min_length=1, max_length=4)
    rerank: RerankMode | None = None
    #: This query's fusion, over the libraries' own ``fusion`` setting.
    fusion: FusionMethod | None = None
    #: A client-chosen id that `system:cancel` can name while the request runs.
    request_id: EntityId | None = None
    #: Documents this search leaves out, as if the libraries did not hold them: no channel
    #: returns their passages, so they neither take a place nor set the scale the others' scores
    #: and relevance are read against (the evaluation's ``exclude``: a question that is itself a
    #: document of the corpus). Each must belong to one of ``library_ids``.
    exclude_document_ids: list[EntityId] = Field(
        default_factory=list, max_length=MAX_EXCLUDED_DOCUMENTS
    )


#: Graph channel reasons that say something of the question or of the library's choice (no
#: entity named, the graph switched off), not of a fault: diagnostics keep them as notes.
GRAPH_NOTES = frozenset({"graph.no_entities", "graph.off"})


class DegradedChannel(ContractModel):
    channel: KnowledgeRetrievalChannel
    reason: str
    reason_code: str | None = None
    reason_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("reason")


class VectorCoverage(ContractModel):
    """How much of a library the vector channel could search while the library's first vector
    version fills ("vectors cover 420/2,000 documents so far"). A current version a few new
    chunks' vectors behind is said by its degraded reason (``vector.partial``) instead."""

    library_id: EntityId
    documents_covered: int
    documents_total: int
    chunks_covered: int
    chunks_total: int


class RerankDiagnostics(ContractModel):
    requested: RerankMode
    applied: RerankMode
    fallback_reason: str | None = None
    candidates: int = 0
    ms: float = 0.0
    fallback_reason_code: str | None = None
    fallback_reason_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("fallback_reason")


class Diagnostics(ContractModel):
    requested_channels: list[KnowledgeRetrievalChannel]
    used_channels: list[KnowledgeRetrievalChannel]
    degraded_channels: list[DegradedChannel]
    candidate_counts: dict[str, int]
    timings_ms: dict[str, float]
    vector_scanned: int
    filtered_by_similarity: int
    fused_candidates: int
    rerank: RerankDiagnostics
    #: Entities of the knowledge graph found in the question (graph channel).
    graph_entities: list[str] = Field(default_factory=list)
    #: Those of ``graph_entities`` the question names only approximately: found by full text
    #: over entity names, aliases and descriptions (the near-miss step), not by a spelled name.
    graph_near_misses: list[str] = Field(default_factory=list)
    #: The graph's paths from an entity of the question to what it asks for, e.g.
    #: "报销系统 —owned_by→ 财务共享中心 —led_by→ 林悦" (the chunks stating the last step rank
    #: first in the graph channel and carry the path in their ``graph_reasons``).
    graph_paths: list[str] = Field(default_factory=list)
    #: Where no path from the question's names answered: the relation the graph followed from
    #: an entity the best result names to what the question asks for, e.g. "财务总监 —led_by→
    #: 邵雨桐" (the passage stating it was moved up; it carries the relation in its reasons).
    graph_step: str | None = None
    fusion: FusionMethod = "adaptive"
    #: Each channel's confidence for this query (0–1), from its own score distribution.
    channel_confidence: dict[str, float] = Field(default_factory=dict)
    #: How many passages the full text's first pick went above because they hold clearly less
    #: of the question's terms (adaptive fusion's last step); 0 when the fused order stood.
    arbitration_passed: int = Field(0, ge=0)
    #: The library's background similarity for this query (mean, std over every scanned row).
    vector_background: list[float] | None = None
    #: Libraries whose first vector version is still filling (the vector channel's weight in
    #: the fusion is scaled by each library's share of chunks with a vector).
    vector_coverage: list[VectorCoverage] = Field(default_factory=list)
    minimum_relevance: float = 0.0
    #: Results withheld because even the best was below the minimum relevance.
    below_minimum_relevance: int = 0
    #: The best relevance among the results before the minimum applied.
    best_relevance: float | None = None


class SameText(ContractModel):
    """A passage whose text is the same as a result's (the same file at two places): listed
    under that result instead of taking a place of its own."""

    chunk_id: EntityId
    document_id: EntityId
    source_id: EntityId
    document_title: str
    document_path: str


class RetrievalResult(ContractModel):
    rank: int
    chunk_id: EntityId
    document_id: EntityId
    library_id: EntityId
    source_id: EntityId
    document_title: str
    document_path: str
    heading_path: list[str]
    locator: dict[str, Any]
    snippet: str
    channel_ranks: dict[str, int]
    vector_similarity: float | None
    rrf_score: float
    pre_rerank_rank: int
    #: The estimated probability that the passage is relevant to the question (calibrated on
    #: the development sets; never higher than a result ranked above it).
    relevance: float = Field(ge=0.0, le=1.0)
    features: dict[str, float]
    #: The entities and relations of the knowledge graph that put this result there.
    graph_reasons: list[str] = Field(default_factory=list)
    #: Below the minimum relevance: listed for diagnosis, never evidence.
    below_floor: bool = False
    #: Passages ranked lower with the very same text, in other documents or places.
    same_text: list[SameText] = Field(default_factory=list)
    #: The checksum of the chunk's text as retrieved (a citation keeps it, so that a reference
    #: opened later can tell the text was edited since).
    checksum: str = ""


class ContextGroup(ContractModel):
    document_id: EntityId
    library_id: EntityId
    document_title: str
    chunk_ids: list[EntityId]
    hit_chunk_ids: list[EntityId]
    locators: list[dict[str, Any]]
    text: str
    character_count: int
    kind: Literal["chunks", "parent"]
    truncated: bool
    relevance: float


class Context(ContractModel):
    character_count: int
    budget: int
    truncated: bool
    groups: list[ContextGroup]


class ZeroResult(ContractModel):
    reason: ZeroResultReason
    message: str
    next_step: str
    message_code: str | None = None
    message_params: dict[str, str] = Field(default_factory=dict)
    next_step_code: str | None = None
    next_step_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("message", "next_step")
    #: ``nothing_relevant``: the best result's relevance and the floor it did not reach.
    best_relevance: float | None = None
    minimum_relevance: float | None = None


class KnowledgeRetrievalResponse(ContractModel):
    query: str
    duration_ms: float
    settings: KnowledgeRetrievalSettings
    diagnostics: Diagnostics
    results: list[RetrievalResult]
    context: Context
    zero_result: ZeroResult | None
    #: The rest of the top K, below the minimum relevance: not evidence (never in the context,
    #: never handed to a model); the workbench lists them greyed, ranked after ``results``.
    below_floor: list[RetrievalResult] = Field(default_factory=list)


class CancelRequest(ContractModel):
    request_id: EntityId


class CancelResponse(ContractModel):
    cancelled: bool


class ReferenceRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId
    chunk_id: EntityId
    #: The checksum a citation kept of the chunk's text: the response says whether the text
    #: changed since (``changed``).
    checksum: str | None = Field(None, max_length=128)


class ReferenceChunk(ContractModel):
    chunk_id: EntityId
    ordinal: int
    role: Literal["standalone", "parent", "child"]
    content: str
    is_hit: bool


class ReferenceContextResponse(ContractModel):
    valid: bool
    message: str | None
    library_name: str | None
    document_title: str | None
    document_path: str | None
    source_kind: str | None
    source_location: str | None
    locator: dict[str, Any] | None
    chunks: list[ReferenceChunk]
    #: The chunk's text is no longer the one the request's ``checksum`` was taken of (edited
    #: since the answer cited it).
    changed: bool = False
    message_code: str | None = None
    message_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("message")


#: What became of a cited passage since the answer: still there as cited, edited since, or
#: gone (deleted, disabled, its document or library removed).
ReferenceState = Literal["valid", "changed", "gone"]


class ReferenceStatesRequest(ContractModel):
    """Every citation of one answer, checked at once (the sources list marks those gone or
    edited before one is chosen)."""

    references: list[ReferenceRequest] = Field(max_length=MAX_CITATIONS_PER_MESSAGE)


class ReferenceStatesResponse(ContractModel):
    #: One per reference, in the request's order.
    states: list[ReferenceState]


class ReferenceOpenResponse(ContractModel):
    opened: bool
    target_kind: Literal["file", "url"]


class DocumentSourceRequest(ContractModel):
    """A document's own source (opened, shown in its folder or located) by ids only: the
    backend re-checks that the document belongs to the library and reads the stored source."""

    library_id: EntityId
    document_id: EntityId


class DocumentLocation(ContractModel):
    """Where a document's checked source is: a local file's path or a page's address."""

    target_kind: Literal["file", "url"]
    target: str
