"""A candidate as the workbench and the chat see it: a `RetrievalResult` with a snippet around
the first query term."""

from __future__ import annotations

from goodbuddy_kb.contracts.retrieval import RetrievalResult
from goodbuddy_kb.main_process.lexical import LexicalQuery
from goodbuddy_kb.main_process.retrieval.candidate import Candidate

SNIPPET = 240


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
        rrf_score=c.fused,
        pre_rerank_rank=c.pre_rank,
        relevance=round(c.relevance, 6),
        features={k: round(v, 6) for k, v in c.features.items()},
    )
