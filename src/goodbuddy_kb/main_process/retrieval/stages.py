"""The stages after the channels: fusion, rerank, calibrated relevance with the
minimum-relevance floor, and context assembly. Each stage is its settings plus one typed ``run``; the scoring math it
calls lives in pure functions (``fusion.py``, ``rerank.py``, ``calibration.py``,
``learned.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.models import RerankConnection
from goodbuddy_kb.contracts.retrieval import Context, RerankDiagnostics, RerankMode
from goodbuddy_kb.contracts.settings import FusionMethod
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.lexical import LexicalQuery
from goodbuddy_kb.main_process.retrieval import calibration, closeness, fusion, learned, scripts
from goodbuddy_kb.main_process.retrieval.candidate import Candidate, distinct
from goodbuddy_kb.main_process.retrieval.channels import ChannelRun
from goodbuddy_kb.main_process.retrieval.context import ContextSource, assemble
from goodbuddy_kb.main_process.retrieval.rerank import features as rerank_features
from goodbuddy_kb.main_process.retrieval.rerank import local_rerank, window_feature
from goodbuddy_kb.main_process.retrieval.settings import ChannelPlan


@dataclass(frozen=True)
class Fusion:
    """The fused list as candidates (best first), with each channel's confidence."""

    method: FusionMethod
    candidates: list[Candidate]
    confidence: dict[str, float]


@dataclass(frozen=True)
class FusionStage:
    """Query-adaptive fusion (the default) or plain weighted RRF over the channels' rankings;
    each library's channel weights apply to its own candidates."""

    method: FusionMethod
    embedding_kind: str | None

    def run(
        self,
        runs: list[ChannelRun],
        plan: ChannelPlan,
        observable: Mapping[str, float] | None = None,
    ) -> Fusion:
        """``observable``: ``scripts.observable`` (how far the lexical channels could see each
        candidate written in a script the question does not use)."""
        library_of: dict[str, str] = {}
        for r in runs:
            library_of.update(r.library_of)
        rankings: dict[str, list[str]] = {
            r.channel: r.ranking for r in runs if r.ranking is not None
        }
        adaptive = fusion.adaptive_fusion(
            [r.fusion_input for r in runs if r.fusion_input is not None],
            fusion.params_for(self.embedding_kind),
            group_of=library_of,
            group_weights=plan.library_weights,
            observable=observable,
        )
        fused = adaptive.ranked
        if self.method == "rrf":
            z_of = {f.chunk_id: f.vector_z for f in adaptive.ranked}
            fused = [
                fusion.Fused(cid, score, z_of.get(cid))
                for cid, score in fusion.weighted_rrf(
                    rankings,
                    plan.weights,
                    group_of=library_of,
                    group_weights=plan.library_weights,
                )
            ]
        similarity: dict[str, float] = {}
        for r in runs:
            similarity.update(r.similarity)
        positions = {
            ch: {cid: i for i, cid in enumerate(ids, start=1)} for ch, ids in rankings.items()
        }
        candidates = [
            Candidate(
                f.chunk_id,
                {ch: pos[f.chunk_id] for ch, pos in positions.items() if f.chunk_id in pos},
                similarity.get(f.chunk_id),
                f.score,
                position,
                vector_z=f.vector_z,
            )
            for position, f in enumerate(fused, start=1)
        ]
        return Fusion(self.method, candidates, adaptive.confidence)


@dataclass(frozen=True)
class ArbitrationStage:
    """Adaptive fusion's last step (``fusion.arbitrate``): where the vector channel ran beside
    the full text, the full text's first pick goes above the passages ranked ahead of it that
    hold clearly less of the question's terms. The text features it reads are kept for the
    stages after it."""

    #: Each query term's idf in the index (``lexical.vocab``).
    term_weights: Mapping[str, float]
    #: The libraries' embedding provider kind (``fusion.params_for``).
    embedding_kind: str | None
    #: Passages a graph path reached, which the pick never passes: their evidence is the path.
    paths: frozenset[str]
    #: How deep in the fused list it looks (the candidate pool).
    depth: int

    def run(
        self, ranked: list[Candidate], runs: list[ChannelRun], query: LexicalQuery
    ) -> tuple[list[Candidate], int]:
        """The candidates in the arbitrated order, and how many passages the pick went above."""
        if not any(r.channel == "vector" and r.ranking for r in runs):
            return ranked, 0
        picks = [r.ranking[0] for r in runs if r.channel in fusion.LEXICAL_CHANNELS and r.ranking]
        head = ranked[: self.depth]
        by_id = {c.chunk_id: c for c in head}
        best_fused = max((c.fused for c in ranked), default=0.0)

        def coverage(chunk_id: str) -> float:
            c = by_id[chunk_id]
            if "coverage" not in c.features:
                c.features = {
                    **rerank_features(c, query, best_fused, self.term_weights, window=False),
                    **c.features,
                }
            return c.features["weightedCoverage"]

        params = fusion.params_for(self.embedding_kind)
        similarity = next(r for r in runs if r.channel == "vector").similarity

        def exempt(chunk_id: str) -> bool:
            # nor a passage written in a script the question does not use: its terms say nothing;
            # nor one the model reads as the question said again (a paraphrase)
            if params.said_again(similarity.get(chunk_id)):
                return True
            return chunk_id in self.paths or scripts.visible(query, by_id[chunk_id].content) < 1.0

        def same_document(a: str, b: str) -> bool:
            return by_id[a].document_id == by_id[b].document_id

        before = list(by_id)
        order = fusion.arbitrate(
            before,
            picks,
            coverage,
            params.coverage_deficit,
            exempt,
            same_document,
            params.same_document_deficit,
        )
        if order == before:
            return ranked, 0
        # the pick takes the fused score of the passage it passed, and the fused rank shown
        # ("before rerank") is this order's, so the rerank and the relevance read this order
        at = next(i for i, (a, b) in enumerate(zip(order, before, strict=True)) if a != b)
        pick = by_id[order[at]]
        if coverage(pick.chunk_id) < params.lexical_low:
            # ordered there, but holding less of the question than gives the full text any
            # confidence by coverage: a stray word ("annual" of "the dress code for the annual
            # gala" in the annual-leave rules), not evidence as strong as what it passed
            pick.own_fused = pick.fused
        pick.fused = by_id[before[at]].fused
        pick.features["fused"] = pick.fused / best_fused if best_fused > 0 else 0.0
        ranks = sorted(c.pre_rank for c in head)
        moved = [by_id[cid] for cid in order]
        for c, rank in zip(moved, ranks, strict=True):
            c.pre_rank = rank
        return moved + ranked[self.depth :], before.index(order[at]) - at


@dataclass
class RerankService:
    connection: RerankConnection
    api_key: str | None


@dataclass(frozen=True)
class RerankStage:
    """Off keeps the fused order; local reorders by deterministic features; learned asks the
    configured service and falls back to local, saying why."""

    mode: RerankMode
    service: Callable[[], RerankService | None]
    weights: dict[str, float]
    #: Each query term's idf in the index (``lexical.vocab``).
    term_weights: Mapping[str, float] = field(default_factory=dict)

    def run(
        self, ranked: list[Candidate], query: LexicalQuery, text: str, cancel: CancelToken
    ) -> tuple[list[Candidate], RerankDiagnostics]:
        started = time.perf_counter()
        considered = len(ranked)
        ranked, applied, fallback = self._rerank(ranked, query, text, cancel)
        diagnostics = RerankDiagnostics(
            requested=self.mode,
            applied=applied,
            fallback_reason=fallback,
            candidates=min(considered, learned.MAX_CANDIDATES)
            if applied == "learned"
            else considered,
            ms=(time.perf_counter() - started) * 1000,
        )
        return ranked, diagnostics

    def _rerank(
        self, ranked: list[Candidate], query: LexicalQuery, text: str, cancel: CancelToken
    ) -> tuple[list[Candidate], RerankMode, str | None]:
        """The reordered candidates, the mode actually applied, and why it fell back."""
        if self.mode == "off" or not ranked:
            return ranked, self.mode, None
        fallback: str | None = None
        if self.mode == "learned":
            service = self.service()
            if service is None or not service.connection.base_url or not service.connection.model:
                fallback = Reason("rerank.not_configured")
            else:
                try:
                    return _learned(service, ranked, text, cancel), "learned", None
                except learned.RerankFailed as exc:
                    fallback = exc.reason
        return local_rerank(ranked, query, self.weights, self.term_weights), "local", fallback


def _learned(
    service: RerankService, ranked: list[Candidate], text: str, cancel: CancelToken
) -> list[Candidate]:
    head = ranked[: learned.MAX_CANDIDATES]
    assert service.connection.base_url and service.connection.model
    scores = learned.rerank(
        service.connection.base_url,
        service.connection.model,
        service.api_key,
        text,
        [c.content for c in head],
        service.connection.timeout_s,
        cancel,
    )
    for c, s in zip(head, scores, strict=True):
        c.features = {"learned": s}
        # the service's own 0–1 score is the relevance in this mode
        c.relevance = max(0.0, min(1.0, s))
    head.sort(key=lambda c: (-c.relevance, c.chunk_id))
    return head


@dataclass(frozen=True)
class Relevance:
    """The top K (``shown``), those at or above the floor (``top``, a prefix of ``shown``: the
    relevance never rises down the list), and the best relevance."""

    shown: list[Candidate]
    top: list[Candidate]
    best: float | None
    #: The passage the step from the best result reached (``graph.step``), if one is shown.
    stepped: str | None = None
    #: The time the relevance took (with the bundled model, most of it reading each shown
    #: passage's closest piece: ``closeness.py``).
    ms: float = 0.0

    @property
    def below_floor(self) -> list[Candidate]:
        return self.shown[len(self.top) :]


def rivals(shown: Sequence[Candidate], ranked: Sequence[Candidate]) -> list[float | None]:
    """For each shown result, the highest vector similarity of a passage of another document
    among every candidate (``calibration.relevance_features``' rival); None if none has one."""
    best: dict[str, float] = {}
    for c in ranked:
        if c.vector_similarity is not None:
            best[c.document_id] = max(best.get(c.document_id, -1.0), c.vector_similarity)
    out: list[float | None] = []
    for c in shown:
        others = [v for doc, v in best.items() if doc != c.document_id]
        out.append(max(others) if others else None)
    return out


@dataclass(frozen=True)
class RelevanceStage:
    """Calibrated relevance for the top K (in learned mode the service's score already is) and
    the ``minimumRelevance`` floor: a result below it is not evidence."""

    top_k: int
    minimum_relevance: float
    learned: bool
    #: The vector background (mean, std) when the vector channel ran.
    background: tuple[float, float] | None
    #: The calibration family of the embedding provider (``calibration.family``).
    family: str = "other"
    #: Each query term's idf in the index (``lexical.vocab``).
    term_weights: Mapping[str, float] = field(default_factory=dict)
    #: The chunks the graph reached by a path to what the question asks (``graph_answers``).
    path_answers: frozenset[str] = frozenset()
    #: The graph's other chunks when a path answered (``calibration.with_paths``).
    path_bridges: frozenset[str] = frozenset()
    #: The chunks stating an answer on a path's way to a deeper one (``graph_on_way``).
    path_on_way: frozenset[str] = frozenset()
    #: How far the text features could see each result (``scripts.observable``; absent: wholly).
    observable: Mapping[str, float] = field(default_factory=dict)
    #: The passages the step from the best result reaches (``graph.step``), when no path did (none
    #: under a learned rerank, whose score already is the relevance).
    step: Sequence[str] = ()
    #: Each text's closest piece's similarity to the question (``closeness.closest`` with the
    #: bundled model); None when the bundled model did not search.
    closeness: Callable[[Sequence[str]], list[float | None]] | None = None

    def _closest(self, shown: Sequence[Candidate]) -> list[float | None] | None:
        """The closest piece's similarity of the first ``closeness.MAX_RESULTS`` results, when
        the family reads it; None if the model fails (the whole passage's similarity stands in)."""
        if self.closeness is None or self.family != "bundled":
            return None
        try:
            return self.closeness([c.content for c in shown[: closeness.MAX_RESULTS]])
        except KbError:
            return None

    def run(self, ranked: list[Candidate], query: LexicalQuery) -> Relevance:
        started = time.perf_counter()
        shown = distinct(ranked, self.top_k)
        best_fused = max((c.fused for c in ranked), default=0.0)
        for c in shown:
            if not c.features or "coverage" not in c.features:
                c.features = {
                    **rerank_features(c, query, best_fused, self.term_weights),
                    **c.features,
                }
            elif "windowCoverage" not in c.features and "learned" not in c.features:
                c.features["windowCoverage"] = window_feature(c, query, self.term_weights)
        if not self.learned:
            margins = [
                None
                if c.vector_z is None or self.background is None
                else c.vector_z * self.background[1]
                for c in shown
            ]
            seen = [
                1.0
                if any(ch in fusion.LEXICAL_CHANNELS for ch in c.channel_ranks)
                else self.observable.get(c.chunk_id, 1.0)
                for c in shown
            ]
            mean = self.background[0] if self.background is not None else 0.0
            values = calibration.relevance_list(
                [evidence(c, best_fused) for c in shown],
                margins,
                self.family,
                seen,
                [None if m is None else m + mean for m in margins],
                [None if c is None else c - mean for c in self._closest(shown) or ()],
                rivals(shown, ranked) if self.family == "bundled" else None,
            )
            for c, value in zip(shown, values, strict=True):
                c.relevance = value
            if self.path_answers & {c.chunk_id for c in shown}:
                shown = calibration.with_paths(
                    shown, self.path_answers, self.path_bridges, self.path_on_way
                )
        stepped = calibration.step_choice(shown, self.step) if self.step else None
        if stepped is not None:
            shown = calibration.with_step(shown, stepped)
        best = max((c.relevance for c in shown), default=None)
        top = [c for c in shown if c.relevance >= self.minimum_relevance]
        return Relevance(shown, top, best, stepped, (time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class ContextStage:
    """Adjacent chunks and parents around the results that passed, within the budget
    (``context.py``); also its time in milliseconds."""

    max_characters: int
    adjacent: int

    def run(self, top: list[Candidate], source: ContextSource) -> tuple[Context, float]:
        started = time.perf_counter()
        context = assemble(top, source, self.max_characters, self.adjacent)
        return context, (time.perf_counter() - started) * 1000


def evidence(c: Candidate, best_fused: float) -> Mapping[str, float]:
    """The features the relevance reads: a pick the full text moved up on a stray share of the
    question's terms is judged on its own fused score, not the one it took to be placed there
    (taken, it read as sure as the vector's first: 0.54, "likely relevant", for a passage that
    shared one word of four with a question the library cannot answer; a helper's try)."""
    if c.own_fused is None:
        return c.features
    return {**c.features, "fused": c.own_fused / best_fused if best_fused > 0 else 0.0}
