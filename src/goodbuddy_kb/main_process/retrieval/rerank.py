"""Local rerank: deterministic features, no model (never presented as "AI rerank").

Features, each in 0–1: RRF score (normalised), CJK and Latin query-term coverage, the longest
contiguous stretch of the query found (phrase), query terms in the title, heading path or file
path, and vector similarity; a penalty for each further result from the same document.
Relevance is their weighted sum, clipped to 0–1. Off keeps exactly the RRF order.
"""

from __future__ import annotations

from goodbuddy_kb.main_process.lexical import scoring
from goodbuddy_kb.main_process.lexical.tokens import LexicalQuery, normalize, term_set
from goodbuddy_kb.main_process.retrieval.candidate import Candidate

WEIGHTS = {"rrf": 0.35, "coverage": 0.25, "phrase": 0.15, "title": 0.10, "vector": 0.15}
DUPLICATE_PENALTY = 0.08


def rrf_relevance(candidates: list[Candidate], best_possible: float) -> None:
    """Rerank off: relevance is the RRF score over the best score any chunk could reach."""
    for c in candidates:
        c.relevance = max(0.0, min(1.0, c.rrf / best_possible)) if best_possible > 0 else 0.0


def _terms(text: str) -> set[str]:
    return term_set(normalize(text))


def features(c: Candidate, query: LexicalQuery, best_rrf: float) -> dict[str, float]:
    normalized = normalize(c.content)
    tokens = _terms(c.content)
    cjk = (
        sum(1 for t in query.cjk_terms if t in tokens) / len(query.cjk_terms)
        if query.cjk_terms
        else None
    )
    latin = (
        sum(1 for t in query.latin_terms if t in tokens) / len(query.latin_terms)
        if query.latin_terms
        else None
    )
    shares = [
        (v, w)
        for v, w in ((cjk, len(query.cjk_terms)), (latin, len(query.latin_terms)))
        if v is not None
    ]
    coverage = sum(v * w for v, w in shares) / sum(w for _, w in shares) if shares else 0.0
    phrase = scoring.phrase_score(scoring.compact(query.phrase_text), scoring.compact(normalized))
    query_terms = set(query.cjk_terms) | set(query.latin_terms)
    titled = _terms(" ".join([c.document_title, *c.heading_path, c.document_path]))
    title = len(query_terms & titled) / len(query_terms) if query_terms else 0.0
    return {
        "rrf": c.rrf / best_rrf if best_rrf > 0 else 0.0,
        "cjkCoverage": cjk or 0.0,
        "latinCoverage": latin or 0.0,
        "coverage": coverage,
        "phrase": phrase,
        "title": title,
        "vector": max(0.0, c.vector_similarity or 0.0),
    }


def local_rerank(candidates: list[Candidate], query: LexicalQuery) -> list[Candidate]:
    """Reorder by relevance (ties by the RRF rank), keeping every feature for diagnostics."""
    best = max((c.rrf for c in candidates), default=0.0)
    base: dict[str, float] = {}
    for c in candidates:
        c.features = features(c, query, best)
        base[c.chunk_id] = sum(WEIGHTS[k] * c.features[k] for k in WEIGHTS)
    remaining = sorted(candidates, key=lambda c: (-base[c.chunk_id], c.pre_rank, c.chunk_id))
    ordered: list[Candidate] = []
    seen: dict[str, int] = {}
    # Greedy: the duplicate penalty depends on how many of the document are already ahead.
    while remaining:
        scored = [
            (base[c.chunk_id] - DUPLICATE_PENALTY * seen.get(c.document_id, 0), c)
            for c in remaining
        ]
        value, pick = min(scored, key=lambda pair: (-pair[0], pair[1].pre_rank, pair[1].chunk_id))
        pick.features["duplicatePenalty"] = DUPLICATE_PENALTY * seen.get(pick.document_id, 0)
        pick.relevance = max(0.0, min(1.0, value))
        seen[pick.document_id] = seen.get(pick.document_id, 0) + 1
        ordered.append(pick)
        remaining.remove(pick)
    return ordered
