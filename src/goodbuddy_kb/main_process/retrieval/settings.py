"""The settings a retrieval runs with: each library's own settings with the request's
overrides, their combination for a request over several libraries (ARCHITECTURE.md, "Several
libraries in one request"), and which channels run with which weights."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from goodbuddy_kb.contracts.errors import invalid_request_from
from goodbuddy_kb.contracts.retrieval import (
    ALL_CHANNELS,
    KnowledgeRetrievalChannel,
    RetrieveRequest,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.lexical import LexicalQuery
from goodbuddy_kb.main_process.storage import libraries


def library_settings(
    conn: sqlite3.Connection, request: RetrieveRequest
) -> dict[str, KnowledgeRetrievalSettings]:
    """Each library's own settings with the request's overrides, validated as a whole."""
    overrides = (
        request.overrides.model_dump(by_alias=True, exclude_none=True) if request.overrides else {}
    )
    result: dict[str, KnowledgeRetrievalSettings] = {}
    for library_id in request.library_ids:
        base = libraries.get_settings(conn, library_id).retrieval
        if not overrides:
            result[library_id] = base
            continue
        try:
            result[library_id] = KnowledgeRetrievalSettings.model_validate(
                {**base.to_wire(), **overrides}
            )
        except ValidationError as exc:
            raise invalid_request_from(exc, "overrides", nested=True) from None
    return result


def combine(per_library: dict[str, KnowledgeRetrievalSettings]) -> KnowledgeRetrievalSettings:
    """The settings of a request over several libraries (ARCHITECTURE.md, "Several libraries"):
    channel weights and the similarity floor stay per library (applied to that library's
    candidates); top K, candidate multiplier, context budget and adjacent chunks take the
    largest library value (a request override replaces them all); local rerank runs when any
    library enables it; the minimum relevance is the lowest; the fusion is RRF only when every
    library chose it. The weights reported here are the
    largest per channel."""
    values = list(per_library.values())
    first = values[0]
    if len(values) == 1:
        return first
    return first.model_copy(
        update={
            "top_k": max(v.top_k for v in values),
            "candidate_multiplier": max(v.candidate_multiplier for v in values),
            "context_max_characters": max(v.context_max_characters for v in values),
            "adjacent_chunk_count": max(v.adjacent_chunk_count for v in values),
            "local_rerank_enabled": any(v.local_rerank_enabled for v in values),
            "fts_weight": max(v.fts_weight for v in values),
            "vector_weight": max(v.vector_weight for v in values),
            "graph_weight": max(v.graph_weight for v in values),
            "minimum_vector_similarity": min(v.minimum_vector_similarity for v in values),
            # the gate opens when the best result reaches the most permissive library's floor
            "minimum_relevance": min(v.minimum_relevance for v in values),
            # plain RRF only when every library chose it (the recommended fusion otherwise)
            "fusion": "rrf" if all(v.fusion == "rrf" for v in values) else "adaptive",
        }
    )


def channel_weights(query: LexicalQuery, settings: KnowledgeRetrievalSettings) -> dict[str, float]:
    weights = query.channel_weights(settings.fts_weight)
    weights.update(vector=settings.vector_weight, graph=settings.graph_weight)
    return weights


@dataclass(frozen=True)
class ChannelPlan:
    """Which channels run, each library's channel weights, and the weight a channel runs with
    (the largest of the libraries')."""

    requested: list[KnowledgeRetrievalChannel]
    library_weights: dict[str, dict[str, float]]
    weights: dict[str, float]

    def covered(self, share: Mapping[str, float]) -> ChannelPlan:
        """This plan with each library's vector weight scaled by the share of its chunks that
        have vectors: a library's first version searched while it fills adds its evidence in
        proportion, so a half-built index cannot outvote full text (fully covered: unchanged)."""
        if all(s >= 1.0 for s in share.values()):
            return self
        library_weights = {
            lib: {**w, "vector": w["vector"] * min(1.0, share.get(lib, 1.0))}
            for lib, w in self.library_weights.items()
        }
        weights = {c: max(w[c] for w in library_weights.values()) for c in self.weights}
        return ChannelPlan(self.requested, library_weights, weights)


def plan_channels(
    query: LexicalQuery,
    per_library: dict[str, KnowledgeRetrievalSettings],
    channels: Sequence[KnowledgeRetrievalChannel] | None,
) -> ChannelPlan:
    """A channel runs when any library asks for it; each library's weights then apply to its
    own candidates in the fusion. Full text runs for any library with a full-text weight."""
    wanted = list(dict.fromkeys(channels or ALL_CHANNELS))
    library_weights = {
        library_id: channel_weights(query, s) for library_id, s in per_library.items()
    }
    weights: dict[str, float] = {
        c: max(w[c] for w in library_weights.values()) for c in ALL_CHANNELS
    }
    lexical_on = any(s.fts_weight > 0 for s in per_library.values())
    requested = [c for c in wanted if weights[c] > 0 or (c in ("fts", "cjk") and lexical_on)]
    return ChannelPlan(requested, library_weights, weights)
