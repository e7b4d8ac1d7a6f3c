"""Pure rescoring of lexical candidates: query-term coverage, phrase hits and exact tokens.

No database here; the channel search fetches candidates by BM25 and this module reorders them,
so that a chunk covering more of the question ranks higher. Ties break by chunk id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from goodbuddy_kb.main_process.lexical.tokens import is_cjk

_NON_WORD = re.compile(r"[\W_]+")

#: Weights of the rescoring features (sum to 1 before the exact-token boost).
W_BM25 = 0.45
W_COVERAGE = 0.35
W_PHRASE = 0.20
EXACT_BOOST = 0.25
#: Coverage credit of a query word found only by its stem ("policies" in a text saying
#: "policy"): less than the exact word, so an exact match ranks above a stem-only one.
STEM_CREDIT = 0.6
#: Coverage credit of a CJK query bigram the index holds nowhere, found in the chunk with one
#: character between its two: Chinese shortens a term by dropping a middle character (年假 for
#: 年休假, 社保 for 社会保险, 高铁 for 高速铁路), so "年假有几天" met no bigram of the rules.
ELIDED_CREDIT = 0.5
#: Contiguous characters that count as a full phrase hit.
PHRASE_SATURATION = 12


def compact(normalized: str) -> str:
    """Letters and digits only: phrase matching ignores spaces and punctuation."""
    return _NON_WORD.sub("", normalized)


def longest_common_run(query: str, text: str) -> int:
    """Length of the longest stretch of ``query`` found contiguously in ``text``."""
    best = 0
    for i in range(len(query)):
        if len(query) - i <= best:
            break
        j = i + best + 1
        while j <= len(query) and query[i:j] in text:
            best = j - i
            j += 1
    return best


def phrase_score(phrase_query: str, chunk_compact: str) -> float:
    """0–1: the longest contiguous stretch of the (compacted) query found in the chunk,
    saturating at PHRASE_SATURATION characters; single characters do not count."""
    run = longest_common_run(phrase_query, chunk_compact) if phrase_query else 0
    saturation = max(2, min(PHRASE_SATURATION, len(phrase_query)))
    return min(1.0, run / saturation) if run >= 2 else 0.0


def word_phrase_score(words: tuple[str, ...], content: tuple[bool, ...], text: str) -> float:
    """0–1 for a question in Latin letters, counted in words: the longest run of its ``words``
    that ``text`` (a passage's words joined by single spaces, with one before and after) holds
    in a row, worth the characters of the run's content words, saturating as the character run
    does. Counted in characters across spaces, "for the" ("forthe") was worth half a phrase, as
    much as the one word the question was about. The relevance and the rerank read it
    (``rerank.features``); the full-text channel's own rescoring (:class:`Features`) keeps the
    character run its weights were set with (counted in words there without a refit, the
    graph fixtures' English MRR@10 fell 0.612 -> 0.551)."""
    total = sum(len(w) for w, c in zip(words, content, strict=True) if c)
    best = 0
    for i in range(len(words)):
        j, worth = i + 1, 0
        while j <= len(words) and f" {' '.join(words[i:j])} " in text:
            worth += len(words[j - 1]) if content[j - 1] else 0
            j += 1
        best = max(best, worth)
    saturation = max(2, min(PHRASE_SATURATION, total))
    return min(1.0, best / saturation) if best >= 2 else 0.0


def spaced_words(words: list[str]) -> str:
    """A passage's words as :func:`word_phrase_score` reads them."""
    return " " + " ".join(words) + " "


@dataclass(frozen=True)
class Features:
    bm25: float
    coverage: float
    phrase: float
    exact: bool

    def score(self) -> float:
        return (
            W_BM25 * self.bm25
            + W_COVERAGE * self.coverage
            + W_PHRASE * self.phrase
            + (EXACT_BOOST if self.exact else 0.0)
        )


def elided(term: str, text: str) -> bool:
    """Whether the two characters of ``term`` stand in ``text`` with one CJK character
    between them (年假 in 年休假)."""
    if len(term) != 2:
        return False
    at = text.find(term[0])
    while 0 <= at < len(text) - 2:
        if text[at + 2] == term[1] and is_cjk(text[at + 1]):
            return True
        at = text.find(term[0], at + 1)
    return False


def coverage(
    terms: tuple[str, ...],
    chunk_tokens: set[str],
    term_stems: tuple[str, ...] = (),
    chunk_stems: frozenset[str] | set[str] = frozenset(),
    shortened: frozenset[str] = frozenset(),
) -> float:
    """0–1: the share of query terms in the chunk, a stem-only match counting STEM_CREDIT and
    a term found only at full length (``shortened``, :func:`elided`) ELIDED_CREDIT."""
    if not terms:
        return 0.0
    found = 0.0
    for i, term in enumerate(terms):
        if term in chunk_tokens:
            found += 1.0
        elif i < len(term_stems) and term_stems[i] in chunk_stems:
            found += STEM_CREDIT
        elif term in shortened:
            found += ELIDED_CREDIT
    return found / len(terms)


def features(
    bm25_norm: float,
    terms: tuple[str, ...],
    chunk_tokens: set[str],
    phrase_query: str,
    chunk_compact: str,
    compounds: tuple[str, ...],
    chunk_normalized: str,
    term_stems: tuple[str, ...] = (),
    chunk_stems: frozenset[str] | set[str] = frozenset(),
) -> Features:
    coverage_ = coverage(terms, chunk_tokens, term_stems, chunk_stems)
    phrase = phrase_score(phrase_query, chunk_compact)
    exact = any(c in chunk_normalized for c in compounds)
    return Features(bm25_norm, coverage_, phrase, exact)
