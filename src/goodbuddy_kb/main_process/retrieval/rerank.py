"""Local rerank: deterministic features, no model (never presented as "AI rerank").

Features, each in 0–1: the fused score over the best fused score (``fused``), CJK and Latin
query-term coverage of the chunk's text, document title and headings (what the lexical channels
match; a stem-only Latin match counts partly, and so does a CJK bigram the index holds nowhere
found with a character between its two: ``scoring.elided``), the same weighed by
each term's idf in the index (``weightedCoverage``, ``lexical.vocab``), the same within the best
stretch of a few sentences (``windowCoverage``, ``proximity.py``: read by the relevance, which
no rerank weight uses), the longest contiguous
stretch of the query found in it (``phrase``; in words for a question in Latin letters,
``scoring.word_phrase_score``), query terms in its title, heading path or file path
(``title``), and its vector similarity above the library's background (``vector``: z / Z_SCALE);
minus ``duplicate`` for each result of the same document already ahead of it. The weights are
derived from the development sets by ``bench/tune_rerank.py``, not set by hand, per embedding
family like the fusion's constants, keeping a weight only if no development set loses R@5 or
MRR@10 to the fused order. Each time the fusion improved, the features had less to add: on
today's fused order, for both families, only a penalty for a second result of the same document
survives (``WEIGHTS``, ``BUNDLED_MODEL_WEIGHTS``); the features stay computed and shown in the
workbench. Off keeps exactly the fused order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from goodbuddy_kb.main_process.lexical import scoring
from goodbuddy_kb.main_process.lexical.tokens import (
    LexicalQuery,
    latin_terms,
    normalize,
    stems,
    term_set,
)
from goodbuddy_kb.main_process.retrieval import proximity
from goodbuddy_kb.main_process.retrieval.candidate import Candidate

#: For every embedding model but the bundled one, refitted on the fused order of 2026-12-06
#: (``tune_rerank.py --family other``, the deterministic provider's dumps of every development
#: set, drcd-dev-noanswer included): on that order the text features no longer add what they
#: did (coverage 0.02, weighted coverage 0.3, phrase 0.02, title 0.3 and duplicate 0.1, fitted
#: on the order of 2026-12-03, put company-graph-dev en R@5 0.400 → 0.300 and the graph
#: fixtures en 1.000 → 0.909 through ``eval --ablation``, and drcd-dev MRR@10 0.965 → 0.964 on
#: the dumps). Only a small penalty for a second result of the same document keeps every set at
#: or above the fused order (drcd-dev R@5 0.9864 → 0.9867, graph fixtures zh MRR@10 0.4394 →
#: 0.4399, every other set equal).
WEIGHTS = {
    "fused": 1.0,
    "coverage": 0.0,
    "weightedCoverage": 0.0,
    "phrase": 0.0,
    "title": 0.0,
    "vector": 0.0,
    "duplicate": 0.02,
}
#: For the bundled local model: on the fused order after ``fusion.arbitrate`` only a penalty for a
#: second result of the same document survives (on the dumps, every question: MRR@10 +0.019
#: cross-language zh, +0.015 graph en, +0.004 graph zh, +0.002 cross-language en, drcd-dev
#: 0.97397 → 0.97395, every other set unchanged). The title weight it had (0.02) cost
#: company-graph-dev en 0.05 there, and any coverage or phrase weight cost cnsd-sts-b.
BUNDLED_MODEL_WEIGHTS = {
    "fused": 1.0,
    "coverage": 0.0,
    "weightedCoverage": 0.0,
    "phrase": 0.0,
    "title": 0.0,
    "vector": 0.0,
    "duplicate": 0.07,
}


def weights_for(embedding_kind: str | None) -> dict[str, float]:
    """The rerank weights for the libraries' embedding provider kind (None: no vectors)."""
    return BUNDLED_MODEL_WEIGHTS if embedding_kind == "local" else WEIGHTS


#: A vector z of this many standard deviations above the background counts as 1.
Z_SCALE = 8.0


def _terms(text: str) -> set[str]:
    return term_set(normalize(text))


def vector_feature(z: float | None) -> float:
    return 0.0 if z is None else max(0.0, min(1.0, z / Z_SCALE))


def weighted_coverage(
    query: LexicalQuery,
    tokens: set[str],
    term_weights: Mapping[str, float],
    shortened: frozenset[str] = frozenset(),
) -> float:
    """0–1: the query terms the chunk holds, each weighed by its idf (``lexical.vocab``); a
    Latin term matched by its stem alone, or a CJK term only at full length (``shortened``),
    counts partly, as in the plain coverage."""
    total = found = 0.0
    for term in query.cjk_terms:
        w = term_weights.get(term, 0.0)
        total += w
        if term in tokens:
            found += w
        elif term in shortened:
            found += w * scoring.ELIDED_CREDIT
    chunk_stems = set(stems(sorted(tokens))) if query.latin_terms else set()
    for i, term in enumerate(query.latin_terms):
        w = term_weights.get(term, 0.0)
        total += w
        if term in tokens:
            found += w
        elif i < len(query.latin_stems) and query.latin_stems[i] in chunk_stems:
            found += w * scoring.STEM_CREDIT
    return found / total if total > 0 else 0.0


def _matched(
    query: LexicalQuery,
    normalized: str,
    tokens: set[str],
    chunk_stems: set[str],
    shortened: frozenset[str] = frozenset(),
    chunk_words: str = "",
) -> tuple[float | None, float | None, float, float]:
    """(CJK coverage, Latin coverage, coverage, phrase) of one query over one chunk."""
    cjk = (
        scoring.coverage(query.cjk_terms, tokens, shortened=shortened) if query.cjk_terms else None
    )
    latin = (
        scoring.coverage(query.latin_terms, tokens, query.latin_stems, chunk_stems)
        if query.latin_terms
        else None
    )
    shares = [
        (v, w)
        for v, w in ((cjk, len(query.cjk_terms)), (latin, len(query.latin_terms)))
        if v is not None
    ]
    coverage = sum(v * w for v, w in shares) / sum(w for _, w in shares) if shares else 0.0
    words, content = query.phrase_words
    phrase = (
        scoring.word_phrase_score(words, content, chunk_words)
        if words
        else scoring.phrase_score(scoring.compact(query.phrase_text), scoring.compact(normalized))
    )
    return cjk, latin, coverage, phrase


def features(
    c: Candidate,
    query: LexicalQuery,
    best_fused: float,
    term_weights: Mapping[str, float] | None = None,
    window: bool = True,
) -> dict[str, float]:
    """The chunk's features for the rerank and the calibrated relevance. A text asking several
    questions (``query.clauses``) gets, for coverage, weighted coverage and phrase, the best of
    the whole text and each question: a passage that answers one of them fully is not half
    relevant because the question asked two things. ``window``: with ``windowCoverage``, which
    only the relevance reads (the stages that read the rest for a whole pool leave it to
    :func:`window_feature`, for the results shown)."""
    normalized = normalize(c.content)
    headed = _headed(c)
    tokens = term_set(normalized) | headed
    chunk_stems = set(stems(sorted(tokens))) if query.latin_terms else set()
    short = _shortened(term_weights, normalized, headed)
    # a question in Latin letters counts its phrase in words (``scoring.word_phrase_score``):
    # the passage's word stems, only then (every candidate of every query passes here)
    in_words = any(q.phrase_words[0] for q in (query, *query.clauses))
    spaced = scoring.spaced_words(stems(latin_terms(normalized))) if in_words else ""
    cjk, latin, coverage, phrase = _matched(query, normalized, tokens, chunk_stems, short, spaced)
    weighted = (
        weighted_coverage(query, tokens, term_weights, short)
        if term_weights is not None
        else coverage
    )
    for clause in query.clauses:
        _c, _l, clause_coverage, clause_phrase = _matched(
            clause, normalized, tokens, chunk_stems, short, spaced
        )
        coverage = max(coverage, clause_coverage)
        phrase = max(phrase, clause_phrase)
        if term_weights is not None:
            weighted = max(weighted, weighted_coverage(clause, tokens, term_weights, short))
    query_terms = set(query.cjk_terms) | set(query.latin_terms)
    titled = headed | _terms(c.document_path)
    title = len(query_terms & titled) / len(query_terms) if query_terms else 0.0
    out = {
        "fused": c.fused / best_fused if best_fused > 0 else 0.0,
        "cjkCoverage": cjk or 0.0,
        "latinCoverage": latin or 0.0,
        "coverage": coverage,
        "phrase": phrase,
        "title": title,
        "vector": vector_feature(c.vector_z),
        "weightedCoverage": weighted if term_weights is not None else coverage,
    }
    if window:
        out["windowCoverage"] = _window(query, normalized, headed, term_weights, short)
    return out


def window_feature(
    c: Candidate, query: LexicalQuery, term_weights: Mapping[str, float] | None = None
) -> float:
    """``windowCoverage`` alone, for a passage whose other features were read without it."""
    normalized = normalize(c.content)
    headed = _headed(c)
    return _window(
        query, normalized, headed, term_weights, _shortened(term_weights, normalized, headed)
    )


def _headed(c: Candidate) -> set[str]:
    """The terms of the passage's document title and headings, which count with its text, as in
    the lexical channels' matching."""
    return _terms(" ".join([c.document_title, *c.heading_path]))


def _shortened(
    term_weights: Mapping[str, float] | None, normalized: str, headed: set[str]
) -> frozenset[str]:
    """The query terms the libraries hold nowhere (``TermWeights.absent``, CJK bigrams) that the
    passage holds with a character between their two (``scoring.elided``). A CJK bigram is one of
    a text's terms exactly when it stands in the text, so no term set is built for it."""
    absent: frozenset[str] = getattr(term_weights, "absent", frozenset())
    return frozenset(
        t
        for t in absent
        if t not in headed and t not in normalized and scoring.elided(t, normalized)
    )


def _window(
    query: LexicalQuery,
    normalized: str,
    headed: set[str],
    term_weights: Mapping[str, float] | None,
    short: frozenset[str],
) -> float:
    def weigh(q: LexicalQuery, terms: set[str]) -> float:
        weights = term_weights
        if weights is None:  # no idf: every term weighs the same, as in the plain coverage
            weights = dict.fromkeys([*q.cjk_terms, *q.latin_terms], 1.0)
        return weighted_coverage(q, terms, weights, short)

    return proximity.window_coverage((query, *query.clauses), normalized, headed, weigh)


def order(
    rows: Sequence[tuple[str, str, int, dict[str, float]]], weights: dict[str, float]
) -> list[tuple[str, float]]:
    """Greedy order of ``(chunk id, document id, fused rank, features)`` by the weighted sum,
    less the duplicate penalty for each result of the same document already placed; ties by
    the fused rank. Returns ``(chunk id, score)`` best first."""
    penalty = weights.get("duplicate", 0.0)
    base = {
        cid: sum(w * feats.get(name, 0.0) for name, w in weights.items() if name != "duplicate")
        for cid, _doc, _pos, feats in rows
    }
    remaining = sorted(rows, key=lambda r: (-base[r[0]], r[2], r[0]))
    if penalty <= 0:
        return [(r[0], base[r[0]]) for r in remaining]
    placed: list[tuple[str, float]] = []
    seen: dict[str, int] = {}
    while remaining:
        value, index = max(
            ((base[r[0]] - penalty * seen.get(r[1], 0), -i) for i, r in enumerate(remaining)),
        )
        row = remaining.pop(-index)
        placed.append((row[0], value))
        seen[row[1]] = seen.get(row[1], 0) + 1
    return placed


def local_rerank(
    candidates: list[Candidate],
    query: LexicalQuery,
    weights: dict[str, float] = WEIGHTS,
    term_weights: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """Reorder by the weighted features, keeping every feature for diagnostics."""
    best = max((c.fused for c in candidates), default=0.0)
    by_id = {}
    rows = []
    for c in candidates:
        c.features = features(c, query, best, term_weights, window=False)
        by_id[c.chunk_id] = c
        rows.append((c.chunk_id, c.document_id, c.pre_rank, c.features))
    ordered = []
    for chunk_id, score in order(rows, weights):
        c = by_id[chunk_id]
        c.features["rerankScore"] = score
        ordered.append(c)
    return ordered
