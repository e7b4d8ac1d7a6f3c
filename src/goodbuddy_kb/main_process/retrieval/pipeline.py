"""`knowledge:retrieve`, top to bottom: channels (fts, cjk, vector, graph) → similarity
threshold → query-adaptive fusion (or weighted RRF) → local or learned rerank → calibrated
relevance and the minimum-relevance floor → context assembly → budget, with the diagnostics
each stage owes the workbench and an explanation when nothing is found."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from goodbuddy_kb.contracts.errors import CancelledError, KbError, invalid_request_from
from goodbuddy_kb.contracts.models import RerankConnection
from goodbuddy_kb.contracts.retrieval import (
    ALL_CHANNELS,
    DegradedChannel,
    Diagnostics,
    KnowledgeRetrievalChannel,
    KnowledgeRetrievalResponse,
    RerankDiagnostics,
    RerankMode,
    RetrievalResult,
    RetrieveRequest,
    ZeroResult,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.graph import channel as graph_channel
from goodbuddy_kb.main_process.lexical import LexicalQuery, build_query
from goodbuddy_kb.main_process.lexical import search as lexical_search
from goodbuddy_kb.main_process.lexical.search import LexicalHit
from goodbuddy_kb.main_process.retrieval import calibration, fusion, learned
from goodbuddy_kb.main_process.retrieval import candidate as candidates_mod
from goodbuddy_kb.main_process.retrieval.candidate import Candidate
from goodbuddy_kb.main_process.retrieval.context import assemble
from goodbuddy_kb.main_process.retrieval.rerank import features as rerank_features
from goodbuddy_kb.main_process.retrieval.rerank import local_rerank
from goodbuddy_kb.main_process.retrieval.rerank import weights_for as rerank_weights_for
from goodbuddy_kb.main_process.retrieval.source import DbContextSource
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.vectors import channel as vector_channel

SNIPPET = 240


@dataclass
class RerankService:
    connection: RerankConnection
    api_key: str | None


@dataclass
class Retriever:
    conn: sqlite3.Connection
    data_dir: Path
    provider: Callable[[], EmbeddingProvider | None]
    rerank_service: Callable[[], RerankService | None]
    degraded: list[DegradedChannel] = field(default_factory=list)

    def run(self, request: RetrieveRequest, cancel: CancelToken) -> KnowledgeRetrievalResponse:
        started = time.perf_counter()
        for library_id in request.library_ids:
            libraries.get(self.conn, library_id)  # not_found for an unknown id
        per_library = library_settings(self.conn, request)
        settings = combine(per_library)
        query = build_query(request.query)
        wanted = list(dict.fromkeys(request.channels or ALL_CHANNELS))
        library_weights = {
            library_id: channel_weights(query, s) for library_id, s in per_library.items()
        }
        # A channel runs when any library asks for it; each library's weights then apply to
        # its own candidates in the fusion.
        weights = {
            c: max(w[c] for w in library_weights.values())
            for c in ("fts", "cjk", "vector", "graph")
        }
        lexical_on = any(s.fts_weight > 0 for s in per_library.values())
        requested = [c for c in wanted if weights[c] > 0 or (c in ("fts", "cjk") and lexical_on)]
        library_of: dict[str, str] = {}
        graph_reasons: dict[str, list[str]] = {}
        graph_entities: list[str] = []
        pool = settings.top_k * settings.candidate_multiplier
        rankings: dict[str, list[str]] = {}
        channel_inputs: list[fusion.ChannelRanking] = []
        embedding_kind: str | None = None
        background: list[float] | None = None
        counts: dict[str, int] = {}
        timings: dict[str, float] = {}
        similarity: dict[str, float] = {}
        used: list[KnowledgeRetrievalChannel] = []
        scanned = filtered = 0
        self.conn.set_progress_handler(lambda: 1 if cancel.cancelled else 0, 2_000)
        try:
            for channel in ("fts", "cjk"):
                if channel in requested:
                    t0 = time.perf_counter()
                    hits = lexical_search(self.conn, channel, request.library_ids, query, pool)
                    timings[channel] = (time.perf_counter() - t0) * 1000
                    library_of.update((h.chunk_id, h.library_id) for h in hits)
                    rankings[channel] = [h.chunk_id for h in hits]
                    channel_inputs.append(lexical_input(channel, hits, weights[channel]))
                    counts[channel] = len(hits)
                    used.append(channel)
            if "vector" in requested:
                t0 = time.perf_counter()
                provider = self._provider_or_degrade()
                embedding_kind = provider.kind if provider is not None else None
                found = vector_channel.search(
                    self.conn,
                    self.data_dir,
                    request.library_ids,
                    provider,
                    request.query,
                    pool,
                    cancel,
                )
                timings["vector"] = (time.perf_counter() - t0) * 1000
                scanned = found.scanned
                for reason in found.degraded:
                    self.degraded.append(DegradedChannel(channel="vector", reason=reason))
                library_of.update((h.chunk_id, h.library_id) for h in found.hits)
                kept = [
                    h
                    for h in found.hits
                    if h.similarity >= per_library[h.library_id].minimum_vector_similarity
                ]
                filtered = len(found.hits) - len(kept)
                similarity = {h.chunk_id: h.similarity for h in found.hits}
                rankings["vector"] = [h.chunk_id for h in kept]
                counts["vector"] = len(kept)
                if found.scanned or found.hits:
                    used.append("vector")
                    background = [found.background_mean, found.background_std]
                    channel_inputs.append(
                        fusion.vector_ranking(
                            [h.chunk_id for h in kept],
                            [h.similarity for h in kept],
                            found.background_mean,
                            found.background_std,
                            weights["vector"],
                        )
                    )
            if "graph" in requested:
                t0 = time.perf_counter()
                graph = self._graph(request, pool)
                timings["graph"] = (time.perf_counter() - t0) * 1000
                if graph.enabled:
                    rankings["graph"] = [h.chunk_id for h in graph.hits]
                    # no development set has a graph yet: its confidence comes from its own
                    # score margin, like a lexical channel's
                    channel_inputs.append(
                        fusion.lexical_ranking(
                            "graph",
                            [h.chunk_id for h in graph.hits],
                            [h.score for h in graph.hits],
                            1.0,
                            weights["graph"],
                        )
                    )
                    counts["graph"] = len(graph.hits)
                    library_of.update((h.chunk_id, h.library_id) for h in graph.hits)
                    graph_reasons.update((h.chunk_id, h.reasons) for h in graph.hits)
                    graph_entities.extend(graph.matched)
                    used.append("graph")
        except sqlite3.OperationalError as exc:
            if cancel.cancelled:
                raise CancelledError(cancel.reason) from exc
            raise
        finally:
            self.conn.set_progress_handler(None, 0)
        cancel.check()
        method = request.fusion or "adaptive"
        adaptive = fusion.adaptive_fusion(
            channel_inputs,
            fusion.params_for(embedding_kind),
            group_of=library_of,
            group_weights=library_weights,
        )
        if method == "rrf":
            z_of = {f.chunk_id: f.vector_z for f in adaptive.ranked}
            fused = [
                fusion.Fused(cid, score, z_of.get(cid))
                for cid, score in fusion.weighted_rrf(
                    rankings, weights, group_of=library_of, group_weights=library_weights
                )
            ]
        else:
            fused = adaptive.ranked
        ranked: list[Candidate] = []
        positions = {
            ch: {cid: i for i, cid in enumerate(ids, start=1)} for ch, ids in rankings.items()
        }
        for position, f in enumerate(fused, start=1):
            ranks = {ch: pos[f.chunk_id] for ch, pos in positions.items() if f.chunk_id in pos}
            ranked.append(
                Candidate(
                    f.chunk_id,
                    ranks,
                    similarity.get(f.chunk_id),
                    f.score,
                    position,
                    vector_z=f.vector_z,
                )
            )
        ranked = candidates_mod.load(self.conn, ranked[: max(pool, learned.MAX_CANDIDATES)])
        mode: RerankMode = request.rerank or ("local" if settings.local_rerank_enabled else "off")
        t0 = time.perf_counter()
        considered = len(ranked)
        ranked, applied, fallback = self._rerank(
            mode, ranked, query, request.query, cancel, rerank_weights_for(embedding_kind)
        )
        timings["rerank"] = (time.perf_counter() - t0) * 1000
        rerank_diag = RerankDiagnostics(
            requested=mode,
            applied=applied,
            fallback_reason=fallback,
            candidates=min(considered, learned.MAX_CANDIDATES)
            if applied == "learned"
            else considered,
            ms=timings["rerank"],
        )
        shown = ranked[: settings.top_k]
        best_fused = max((c.rrf for c in ranked), default=0.0)
        for c in shown:
            if not c.features or "coverage" not in c.features:
                c.features = {**rerank_features(c, query, best_fused), **c.features}
            if applied != "learned":
                margin = (
                    None if c.vector_z is None or background is None else c.vector_z * background[1]
                )
                c.relevance = calibration.relevance(c.features, margin)
        best_relevance = max((c.relevance for c in shown), default=None)
        # The floor is a gate: when even the best result is below it, nothing is shown (the
        # question is not answered by these libraries); otherwise the list stays whole, since a
        # weaker second result is still worth seeing beside a good first one.
        passes = best_relevance is not None and best_relevance >= settings.minimum_relevance
        top = shown if passes else []
        t0 = time.perf_counter()
        context = assemble(
            top,
            DbContextSource(self.conn),
            settings.context_max_characters,
            settings.adjacent_chunk_count,
        )
        timings["context"] = (time.perf_counter() - t0) * 1000
        results = [
            to_result(rank, c, query, graph_reasons.get(c.chunk_id, []))
            for rank, c in enumerate(top, start=1)
        ]
        diagnostics = Diagnostics(
            requested_channels=requested,
            used_channels=used,
            degraded_channels=self.degraded,
            candidate_counts=counts,
            timings_ms=timings,
            vector_scanned=scanned,
            filtered_by_similarity=filtered,
            fused_candidates=len(fused),
            rerank=rerank_diag,
            graph_entities=graph_entities[:20],
            fusion=method,
            channel_confidence=adaptive.confidence,
            vector_background=[round(x, 6) for x in background] if background else None,
            minimum_relevance=settings.minimum_relevance,
            below_minimum_relevance=len(shown) - len(top),
            best_relevance=round(best_relevance, 6) if best_relevance is not None else None,
        )
        zero = None
        if not results and shown and best_relevance is not None:
            zero = nothing_relevant(best_relevance, settings.minimum_relevance)
        elif not results:
            zero = explain_zero(self.conn, request.library_ids, used, filtered, self.degraded)
        return KnowledgeRetrievalResponse(
            query=request.query,
            duration_ms=(time.perf_counter() - started) * 1000,
            settings=settings,
            diagnostics=diagnostics,
            results=results,
            context=context,
            zero_result=zero,
        )

    def _graph(self, request: RetrieveRequest, pool: int) -> graph_channel.GraphResult:
        """The graph channel; a failure degrades it and never blocks the other channels."""
        try:
            found = graph_channel.search(self.conn, request.library_ids, request.query, pool)
        except (sqlite3.Error, KbError) as exc:
            if isinstance(exc, CancelledError) or (
                isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)
            ):
                raise
            self.degraded.append(
                DegradedChannel(
                    channel="graph",
                    reason=f"the knowledge graph could not be searched ({exc.__class__.__name__})",
                )
            )
            return graph_channel.GraphResult()
        for reason in dict.fromkeys(found.degraded):
            self.degraded.append(DegradedChannel(channel="graph", reason=reason))
        return found

    def _provider_or_degrade(self) -> EmbeddingProvider | None:
        try:
            return self.provider()
        except Exception as exc:
            self.degraded.append(
                DegradedChannel(
                    channel="vector",
                    reason=f"the embedding provider cannot start ({exc.__class__.__name__})",
                )
            )
            return None

    def _rerank(
        self,
        mode: RerankMode,
        ranked: list[Candidate],
        query: LexicalQuery,
        text: str,
        cancel: CancelToken,
        weights: dict[str, float],
    ) -> tuple[list[Candidate], RerankMode, str | None]:
        """The reordered candidates, the mode actually applied, and why it fell back."""
        if mode == "off" or not ranked:
            return ranked, mode, None
        fallback: str | None = None
        if mode == "learned":
            service = self.rerank_service()
            if service is None or not service.connection.base_url or not service.connection.model:
                fallback = "no rerank service is configured"
            else:
                head = ranked[: learned.MAX_CANDIDATES]
                try:
                    scores = learned.rerank(
                        service.connection.base_url,
                        service.connection.model,
                        service.api_key,
                        text,
                        [c.content for c in head],
                        service.connection.timeout_s,
                        cancel,
                    )
                except learned.RerankFailed as exc:
                    fallback = exc.reason
                else:
                    for c, s in zip(head, scores, strict=True):
                        c.features = {"learned": s}
                        # the service's own 0–1 score is the relevance in this mode
                        c.relevance = max(0.0, min(1.0, s))
                    head.sort(key=lambda c: (-c.relevance, c.chunk_id))
                    return head, "learned", None
        return local_rerank(ranked, query, weights), "local", fallback


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
    library enables it; the minimum relevance is the lowest. The weights reported here are the
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
        }
    )


def channel_weights(query: LexicalQuery, settings: KnowledgeRetrievalSettings) -> dict[str, float]:
    weights = query.channel_weights(settings.fts_weight)
    weights.update(vector=settings.vector_weight, graph=settings.graph_weight)
    return weights


def snippet(content: str, query: LexicalQuery) -> str:
    lowered = content.casefold()
    positions = [
        p for p in (lowered.find(t) for t in (*query.cjk_terms, *query.latin_terms)) if p >= 0
    ]
    start = max(0, min(positions) - 60) if positions else 0
    piece = content[start : start + SNIPPET].replace("\n", " ")
    return ("…" if start else "") + piece + ("…" if start + SNIPPET < len(content) else "")


def to_result(
    rank: int, c: Candidate, query: LexicalQuery, graph_reasons: list[str] | None = None
) -> RetrievalResult:
    return RetrievalResult(
        graph_reasons=graph_reasons or [],
        rank=rank,
        chunk_id=c.chunk_id,
        document_id=c.document_id,
        library_id=c.library_id,
        source_id=c.source_id,
        document_title=c.document_title,
        document_path=c.document_path,
        heading_path=c.heading_path,
        locator=c.locator,
        snippet=snippet(c.content, query),
        channel_ranks=c.channel_ranks,
        vector_similarity=c.vector_similarity,
        rrf_score=c.rrf,
        pre_rerank_rank=c.pre_rank,
        relevance=round(c.relevance, 6),
        features={k: round(v, 6) for k, v in c.features.items()},
    )


def lexical_input(channel: str, hits: list[LexicalHit], weight: float) -> fusion.ChannelRanking:
    return fusion.lexical_ranking(
        channel,
        [h.chunk_id for h in hits],
        [h.score for h in hits],
        hits[0].features.coverage if hits else 0.0,
        weight,
    )


def nothing_relevant(best: float, floor: float) -> ZeroResult:
    return ZeroResult(
        reason="nothing_relevant",
        message=(
            f"Nothing relevant enough: the best match has relevance {best:.2f},"
            f" below this library's minimum of {floor:g}."
        ),
        next_step="Rephrase the question, check the selected libraries, or lower the minimum relevance in the retrieval settings.",
        best_relevance=round(best, 4),
        minimum_relevance=floor,
    )


def explain_zero(
    conn: sqlite3.Connection,
    library_ids: list[str],
    used: list[KnowledgeRetrievalChannel],
    filtered: int,
    degraded: list[DegradedChannel],
) -> ZeroResult:
    marks = ",".join("?" for _ in library_ids)
    (chunks,) = conn.execute(
        f"SELECT count(*) FROM chunks WHERE library_id IN ({marks}) AND enabled = 1 AND role != 'parent'",
        tuple(library_ids),
    ).fetchone()
    if chunks == 0:
        return ZeroResult(
            reason="empty_library",
            message="The selected libraries have no searchable content yet.",
            next_step="Add files, folders or web pages in Documents & sources and let the sync finish.",
        )
    if not used:
        reasons = "; ".join(d.reason for d in degraded) or "no channel could run"
        return ZeroResult(
            reason="index_unavailable",
            message=f"No search channel could run: {reasons}.",
            next_step="Check the index status in Documents & sources, enable full-text search, or rebuild the vector index.",
        )
    if filtered:
        return ZeroResult(
            reason="filtered",
            message=f"{filtered} vector matches were below the minimum similarity and nothing else matched.",
            next_step="Lower the minimum vector similarity in the retrieval settings and run the query again.",
        )
    return ZeroResult(
        reason="no_match",
        message="Nothing in the selected libraries matches this question.",
        next_step="Try other keywords, a synonym, or a shorter question; check that the right libraries are selected.",
    )
