"""The first stage of retrieval: the channels (fts, cjk, vector, graph) behind one shape.

Each channel has a small adapter that runs it for a :class:`ChannelQuery` and returns a
:class:`ChannelRun` — its ranking, its input to the fusion, its time and the reasons it
degraded (raised with their message codes) — so the pipeline treats every channel alike. The
vector channel also keeps its similarities, scan counts and background; the graph channel the
entities it matched and why each chunk is there."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping
from concurrent.futures import wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from goodbuddy_kb.contracts.errors import CancelledError, KbError
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.retrieval import KnowledgeRetrievalChannel, VectorCoverage
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.graph import channel as graph_channel
from goodbuddy_kb.main_process.lexical import LexicalQuery
from goodbuddy_kb.main_process.lexical import search as lexical_search
from goodbuddy_kb.main_process.lexical.vocab import TermRows
from goodbuddy_kb.main_process.retrieval import fusion
from goodbuddy_kb.main_process.vectors import channel as vector_channel

#: The graph channel's reasons (its module words them) with their message codes.
GRAPH_REASONS = {
    graph_channel.NOT_ENABLED: "graph.off",
    graph_channel.NO_ENTITIES: "graph.no_entities",
}

#: The graph channel's confidence in the fusion when it reached what the question asks for.
PATH_CONFIDENCE = 1.0


@dataclass(frozen=True)
class ChannelQuery:
    """What every channel is asked: the query, the libraries, the pool size and the weights."""

    conn: sqlite3.Connection
    data_dir: Path
    library_ids: list[str]
    text: str
    query: LexicalQuery
    pool: int
    weights: Mapping[str, float]
    per_library: Mapping[str, KnowledgeRetrievalSettings]
    provider: Callable[[], EmbeddingProvider | None]
    cancel: CancelToken
    #: The query terms' rows in the full-text tables, read once for the request.
    term_rows: TermRows | None = None
    #: Chunks no channel returns (the passages of the request's excluded documents).
    excluded: frozenset[str] = frozenset()


@dataclass
class ChannelRun:
    """One channel's answer. ``ranking`` is None when the channel took no part (the graph of
    a library whose graph is off); ``fusion_input`` is None when it has nothing to fuse. A
    channel counts as used when it has a fusion input, unless a degradation left it empty (the
    graph when the question names none of its entities)."""

    channel: KnowledgeRetrievalChannel
    ms: float = 0.0
    ranking: list[str] | None = None
    fusion_input: fusion.ChannelRanking | None = None
    degraded: list[str] = field(default_factory=list)
    #: The library of every chunk the channel found (before any similarity filter).
    library_of: dict[str, str] = field(default_factory=dict)
    # vector channel
    similarity: dict[str, float] = field(default_factory=dict)
    scanned: int = 0
    filtered: int = 0
    background: tuple[float, float] | None = None
    embedding_kind: str | None = None
    #: The bundled model and the question's embedding by it (``VectorResult.question``).
    question: tuple[EmbeddingProvider, Matrix] | None = None
    #: Libraries the vectors cover only in part, and each library's share of chunks covered.
    coverage: list[VectorCoverage] = field(default_factory=list)
    chunk_share: dict[str, float] = field(default_factory=dict)
    # graph channel
    graph_reasons: dict[str, list[str]] = field(default_factory=dict)
    graph_entities: list[str] = field(default_factory=list)
    graph_near_misses: list[str] = field(default_factory=list)
    graph_paths: list[str] = field(default_factory=list)
    #: the chunks stating what the question asks for, when the graph followed a path to it from
    #: a name the question spells out
    graph_answers: set[str] = field(default_factory=set)
    #: The chunks stating an answer on the path to a deeper one (``GraphHit.on_way``).
    graph_on_way: set[str] = field(default_factory=set)

    @property
    def used(self) -> bool:
        return self.fusion_input is not None and (bool(self.ranking) or not self.degraded)

    @property
    def count(self) -> int | None:
        return None if self.ranking is None else len(self.ranking)


def _elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def lexical(channel: Literal["fts", "cjk"], q: ChannelQuery) -> ChannelRun:
    """fts or cjk: BM25 pools rescored by query-term coverage (``lexical/search.py``)."""
    started = time.perf_counter()
    hits = lexical_search(q.conn, channel, q.library_ids, q.query, q.pool, q.term_rows)
    if q.excluded:
        hits = [h for h in hits if h.chunk_id not in q.excluded]
    ms = _elapsed_ms(started)
    ids = [h.chunk_id for h in hits]
    return ChannelRun(
        channel,
        ms=ms,
        ranking=ids,
        fusion_input=fusion.lexical_ranking(
            channel,
            ids,
            [h.score for h in hits],
            hits[0].features.coverage if hits else 0.0,
            q.weights[channel],
        ),
        library_of={h.chunk_id: h.library_id for h in hits},
    )


def fts(q: ChannelQuery) -> ChannelRun:
    return lexical("fts", q)


def cjk(q: ChannelQuery) -> ChannelRun:
    return lexical("cjk", q)


def vector(q: ChannelQuery) -> ChannelRun:
    """The vector channel on the caller's thread."""
    return _vector_finish(q, _vector_begin(q, background=False))


def _vector_begin(
    q: ChannelQuery, background: bool = True
) -> tuple[ChannelRun, vector_channel.Pending, float]:
    started = time.perf_counter()
    run = ChannelRun("vector")
    provider = _provider_or_degrade(q, run)
    run.embedding_kind = provider.kind if provider is not None else None
    pending = vector_channel.begin(
        q.conn, q.data_dir, q.library_ids, provider, q.text, q.pool, q.cancel, background
    )
    return run, pending, _elapsed_ms(started)


def _vector_finish(
    q: ChannelQuery, begun: tuple[ChannelRun, vector_channel.Pending, float]
) -> ChannelRun:
    """The scan's hits, then each library's ``minimumVectorSimilarity`` (the similarity filter
    stage: what it drops still counts in the diagnostics). The channel's time is its own work
    (reading, embedding, scanning, looking up), not the time it waited for the other channels."""
    run, pending, begin_ms = begun
    started = time.perf_counter()
    found = vector_channel.finish(q.conn, pending)
    if q.excluded:
        found = replace(found, hits=[h for h in found.hits if h.chunk_id not in q.excluded])
    run.ms = begin_ms + found.embed_ms + found.elapsed_ms + _elapsed_ms(started)
    run.scanned = found.scanned
    run.degraded.extend(found.degraded)
    run.coverage, run.chunk_share = found.coverage, found.chunk_share
    run.question = found.question
    run.library_of = {h.chunk_id: h.library_id for h in found.hits}
    kept = [h for h in found.hits if _above_floor(h.similarity, q, h.library_id)]
    run.filtered = len(found.hits) - len(kept)
    run.similarity = {h.chunk_id: h.similarity for h in found.hits}
    run.ranking = [h.chunk_id for h in kept]
    if found.scanned or found.hits:
        run.background = (found.background_mean, found.background_std)
        run.fusion_input = fusion.vector_ranking(
            run.ranking,
            [h.similarity for h in kept],
            found.background_mean,
            found.background_std,
            # a partly covered library's vector ranking counts as much as it covers
            q.weights["vector"] * max(found.chunk_share.values(), default=1.0),
        )
    return run


def _above_floor(similarity: float, q: ChannelQuery, library_id: str) -> bool:
    """``minimumVectorSimilarity`` 0 is "no filtering" (PRD §7.3): even a hit with a negative
    cosine stays; any floor above 0 keeps what reaches it."""
    floor = q.per_library[library_id].minimum_vector_similarity
    return floor <= 0 or similarity >= floor


def _provider_or_degrade(q: ChannelQuery, run: ChannelRun) -> EmbeddingProvider | None:
    try:
        return q.provider()
    except Exception as exc:
        run.degraded.append(Reason("vector.provider_cannot_start", error=type(exc).__name__))
        return None


def graph(q: ChannelQuery) -> ChannelRun:
    """The knowledge graph; a failure degrades it and never blocks the other channels."""
    started = time.perf_counter()
    run = ChannelRun("graph")
    found = _graph_or_degrade(q, run)
    if q.excluded:
        found = replace(found, hits=[h for h in found.hits if h.chunk_id not in q.excluded])
    run.ms = _elapsed_ms(started)
    if found.enabled:
        run.ranking = [h.chunk_id for h in found.hits]
        # its confidence comes from its own score margin, like a lexical channel's, unless it
        # followed the question's entity to what the question asks for (company-graph-dev:
        # a path's answer ranks first alone, but few hits leave a small margin)
        run.fusion_input = fusion.lexical_ranking(
            "graph", run.ranking, [h.score for h in found.hits], 1.0, q.weights["graph"]
        )
        if found.answered:
            run.fusion_input = replace(run.fusion_input, known_confidence=PATH_CONFIDENCE)
        run.library_of = {h.chunk_id: h.library_id for h in found.hits}
        run.graph_reasons = {h.chunk_id: h.reasons for h in found.hits}
        run.graph_entities = list(found.matched)
        run.graph_near_misses = list(found.near_misses)
        run.graph_paths = list(found.paths)
        if found.answered:
            run.graph_answers = {h.chunk_id for h in found.hits if h.answers}
            run.graph_on_way = {h.chunk_id for h in found.hits if h.on_way and not h.answers}
    return run


def _graph_or_degrade(q: ChannelQuery, run: ChannelRun) -> graph_channel.GraphResult:
    try:
        found = graph_channel.search(q.conn, q.library_ids, q.text, q.pool)
    except (sqlite3.Error, KbError) as exc:
        if isinstance(exc, CancelledError) or (
            isinstance(exc, sqlite3.OperationalError) and "interrupted" in str(exc)
        ):
            raise
        run.degraded.append(Reason("graph.search_failed", error=type(exc).__name__))
        return graph_channel.GraphResult()
    for reason in dict.fromkeys(found.degraded):
        code = GRAPH_REASONS.get(reason)
        run.degraded.append(Reason(code) if code is not None else reason)
    return found


#: The adapters in the order the channels run.
ADAPTERS: dict[KnowledgeRetrievalChannel, Callable[[ChannelQuery], ChannelRun]] = {
    "fts": fts,
    "cjk": cjk,
    "vector": vector,
    "graph": graph,
}


def run_channels(q: ChannelQuery, requested: list[KnowledgeRetrievalChannel]) -> list[ChannelRun]:
    """Every requested channel, in the adapters' order; a cancel interrupts SQLite steps. The
    vector channel's embedding and scan run on a worker thread while this one runs the others
    (``vectors.channel.begin``); every database read stays on this thread's connection."""
    q.conn.set_progress_handler(lambda: 1 if q.cancel.cancelled else 0, 2_000)
    try:
        begun = _vector_begin(q) if "vector" in requested else None
        try:
            runs: dict[KnowledgeRetrievalChannel, ChannelRun] = {
                channel: adapter(q)
                for channel, adapter in ADAPTERS.items()
                if channel in requested and channel != "vector"
            }
        finally:
            if begun is not None and begun[1].work is not None:
                wait([begun[1].work])  # never leave a scan running past the request
        if begun is not None:
            runs["vector"] = _vector_finish(q, begun)
        return [runs[channel] for channel in ADAPTERS if channel in runs]
    except sqlite3.OperationalError as exc:
        if q.cancel.cancelled:
            raise CancelledError(q.cancel.reason) from exc
        raise
    finally:
        q.conn.set_progress_handler(None, 0)
