"""`knowledge:retrieve`, top to bottom: channels (fts, cjk, vector, graph; `channels.py`) →
similarity threshold → query-adaptive fusion (or weighted RRF) → local or learned rerank →
calibrated relevance and the minimum-relevance floor (`stages.py`) → context assembly →
response (`results.py`), with the diagnostics each stage owes the workbench and an explanation
when nothing is found (`zero.py`). Settings come from `settings.py`."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.retrieval import (
    DegradedChannel,
    KnowledgeRetrievalResponse,
    RerankMode,
    RetrieveRequest,
    ZeroResult,
)
from goodbuddy_kb.contracts.settings import KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.graph import step as graph_step
from goodbuddy_kb.main_process.lexical import build_query
from goodbuddy_kb.main_process.lexical.vocab import TermRows, term_weights
from goodbuddy_kb.main_process.retrieval import calibration, closeness, learned, scripts
from goodbuddy_kb.main_process.retrieval import candidate as candidates_mod
from goodbuddy_kb.main_process.retrieval.channels import ChannelQuery, ChannelRun, run_channels
from goodbuddy_kb.main_process.retrieval.fusion import LEXICAL_CHANNELS
from goodbuddy_kb.main_process.retrieval.rerank import weights_for as rerank_weights_for
from goodbuddy_kb.main_process.retrieval.results import describe, to_results
from goodbuddy_kb.main_process.retrieval.settings import combine, library_settings, plan_channels
from goodbuddy_kb.main_process.retrieval.source import DbContextSource
from goodbuddy_kb.main_process.retrieval.stages import (
    ArbitrationStage,
    ContextStage,
    FusionStage,
    RelevanceStage,
    RerankService,
    RerankStage,
)
from goodbuddy_kb.main_process.retrieval.zero import explain_zero, nothing_relevant
from goodbuddy_kb.main_process.storage import libraries


@dataclass
class Retriever:
    conn: sqlite3.Connection
    data_dir: Path
    provider: Callable[[], EmbeddingProvider | None]
    rerank_service: Callable[[], RerankService | None]
    #: Every degradation this retriever met (a chat's retriever keeps them across its searches).
    degraded: list[DegradedChannel] = field(default_factory=list)

    def run(self, request: RetrieveRequest, cancel: CancelToken) -> KnowledgeRetrievalResponse:
        started = time.perf_counter()
        for library_id in request.library_ids:
            libraries.get(self.conn, library_id)  # not_found for an unknown id
        per_library = library_settings(self.conn, request)
        settings = combine(per_library)
        query = build_query(request.query)
        plan = plan_channels(query, per_library, request.channels)
        pool = settings.top_k * settings.candidate_multiplier
        term_rows = TermRows(self.conn)
        asked = ChannelQuery(
            conn=self.conn,
            data_dir=self.data_dir,
            library_ids=request.library_ids,
            text=request.query,
            query=query,
            pool=pool,
            weights=plan.weights,
            per_library=per_library,
            provider=self.provider,
            cancel=cancel,
            term_rows=term_rows,
            excluded=_excluded_chunks(self.conn, request),
        )
        runs = run_channels(asked, plan.requested)
        for run in runs:  # each reason once, however many libraries gave it
            for reason in run.degraded:
                if not any(x.channel == run.channel and x.reason == reason for x in self.degraded):
                    self.degraded.append(DegradedChannel(channel=run.channel, reason=reason))
        cancel.check()
        vector = next((r for r in runs if r.channel == "vector"), None)
        embedding_kind = vector.embedding_kind if vector else None
        settings = settings.model_copy(update={"fusion": request.fusion or settings.fusion})
        # the lexical channels' silence counts less where they could not have read the passage
        # (the bundled model, whose vectors find the other language's passages, measured there;
        # the deterministic provider's find none: it fell below its fixtures' quality gates)
        matched = {c for r in runs if r.channel in LEXICAL_CHANNELS for c in r.ranking or ()}
        unmatched = (c for r in runs for c in r.ranking or () if c not in matched)
        seen = scripts.observable(self.conn, query, unmatched) if embedding_kind == "local" else {}
        fused = FusionStage(settings.fusion, embedding_kind).run(
            runs, plan.covered(vector.chunk_share if vector else {}), seen
        )
        ranked = candidates_mod.load(
            self.conn, fused.candidates[: max(pool, learned.MAX_CANDIDATES)]
        )
        idf = term_weights(self.conn, query, term_rows)
        passed = 0
        answers = frozenset(c for run in runs for c in run.graph_answers)
        if settings.fusion == "adaptive":
            arbitration = ArbitrationStage(idf, embedding_kind, answers, pool)
            ranked, passed = arbitration.run(ranked, runs, query)
        mode: RerankMode = request.rerank or ("local" if settings.local_rerank_enabled else "off")
        rerank = RerankStage(mode, self.rerank_service, rerank_weights_for(embedding_kind), idf)
        ranked, rerank_diag = rerank.run(ranked, query, request.query, cancel)
        background = vector.background if vector else None
        learned_order = rerank_diag.applied == "learned"
        graph = next((r for r in runs if r.channel == "graph"), None)
        step = None
        if graph is not None and not answers and ranked and not learned_order:
            # no path from a name of the question: the step from the best result (a learned
            # rerank's score already is its relevance: nothing is lifted there, nor said)
            best = ranked[0]
            step = graph_step.from_result(
                self.conn, best.library_id, best.chunk_id, request.query, set(graph.graph_entities)
            )
        relevance = RelevanceStage(
            settings.top_k,
            settings.minimum_relevance,
            learned_order,
            background,
            calibration.family(embedding_kind),
            idf,
            answers,
            frozenset(c for run in runs if run.graph_answers for c in run.ranking or ()),
            frozenset(c for run in runs for c in run.graph_on_way),
            seen,
            step.chunk_ids if step is not None else (),
            _closeness(vector),
        ).run(ranked, query)
        stepped = None
        if graph is not None and step is not None and relevance.stepped is not None:
            # the result says why it is there: the relation it states
            stepped = step.labels[relevance.stepped]
            graph.graph_reasons.setdefault(relevance.stepped, []).insert(0, stepped)
        context, context_ms = ContextStage(
            settings.context_max_characters, settings.adjacent_chunk_count
        ).run(relevance.top, DbContextSource(self.conn))
        results = to_results(relevance.top, query, runs)
        diagnostics = describe(
            plan,
            runs,
            fused,
            rerank_diag,
            relevance,
            settings,
            self.degraded,
            context_ms,
            passed,
            stepped,
        )
        return KnowledgeRetrievalResponse(
            query=request.query,
            duration_ms=(time.perf_counter() - started) * 1000,
            settings=settings,
            diagnostics=diagnostics,
            results=results,
            context=context,
            zero_result=self._zero(request, runs, relevance.shown, relevance.best, settings)
            if not results
            else None,
            below_floor=to_results(relevance.below_floor, query, runs, len(results) + 1, True),
        )

    def _zero(
        self,
        request: RetrieveRequest,
        runs: list[ChannelRun],
        shown: list[candidates_mod.Candidate],
        best: float | None,
        settings: KnowledgeRetrievalSettings,
    ) -> ZeroResult:
        if shown and best is not None:
            return nothing_relevant(best, settings.minimum_relevance)
        used = [r.channel for r in runs if r.used]
        filtered = sum(r.filtered for r in runs)
        return explain_zero(self.conn, request.library_ids, used, filtered, self.degraded)


def _excluded_chunks(conn: sqlite3.Connection, request: RetrieveRequest) -> frozenset[str]:
    """The passages of the request's excluded documents; a document of no library the request
    names is not found (its id says nothing of another library)."""
    if not request.exclude_document_ids:
        return frozenset()
    wanted = list(dict.fromkeys(request.exclude_document_ids))
    marks = ",".join("?" * len(wanted))
    owned = {
        row[0]
        for row in conn.execute(
            f"SELECT id FROM documents WHERE id IN ({marks}) AND library_id IN"
            f" ({','.join('?' * len(request.library_ids))})",
            (*wanted, *request.library_ids),
        )
    }
    for document_id in wanted:
        if document_id not in owned:
            raise NotFoundError("document not found", {"documentId": document_id})
    rows = conn.execute(f"SELECT id FROM chunks WHERE document_id IN ({marks})", wanted)
    return frozenset(row[0] for row in rows)


def _closeness(vector: ChannelRun | None) -> Callable[[Sequence[str]], list[float | None]] | None:
    """Reads each text's closest piece to the question with the bundled model, when it searched."""
    if vector is None or vector.question is None:
        return None
    maker, question = vector.question
    return lambda texts: closeness.closest(maker, question, texts)
