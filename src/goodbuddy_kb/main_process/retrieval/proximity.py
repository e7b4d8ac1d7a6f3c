"""How close together a passage holds the question's terms (``windowCoverage``): the share of
them, weighed by idf as in ``weightedCoverage``, that one stretch of consecutive sentences of
about ``WIDTH`` holds.

A long passage holds many of a question's words by chance, scattered over its length: an
encyclopaedia article's section names a country in one paragraph, a year in another and
"independence" in a third, and a question the library cannot answer finds such a passage
"half covered". A passage that answers holds the words together, in the sentences that answer.
This is the classic term-proximity evidence of full-text ranking (the smallest span holding the
query's terms), read as a share so that it means the same in every library and language; a
passage shorter than the window reads the same as its weighted coverage. The relevance
calibration reads it (``calibration.relevance_features``); the ranking does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from goodbuddy_kb.main_process.lexical.tokens import (
    LexicalQuery,
    latin_terms,
    script_counts,
    stems,
    term_set,
    terms_in,
)

#: The stretch's length: CJK characters, plus Latin words at ``LATIN_WORD`` each. About two or
#: three sentences of an encyclopaedia paragraph, a policy clause with its conditions.
WIDTH = 120
#: What a Latin word counts in ``WIDTH`` (a Chinese character carries about two thirds of an
#: English word's meaning).
LATIN_WORD = 1.5

#: Where a sentence ends: Chinese full stops, question and exclamation marks, semicolons and line
#: breaks; a Latin full stop, colon, question or exclamation mark before a space.
_BREAK = re.compile(r"(?<=[。！？；\n])|(?<=[.!?;:])\s+")


def _length(text: str) -> float:
    cjk, latin = script_counts(text)
    return cjk + LATIN_WORD * latin


def sentences(normalized: str) -> list[str]:
    return [s for s in _BREAK.split(normalized) if s and not s.isspace()]


def window_coverage(
    queries: tuple[LexicalQuery, ...],
    normalized: str,
    headed: set[str],
    weighted: Callable[[LexicalQuery, set[str]], float],
) -> float:
    """The best ``weighted(query, terms)`` over the passage's windows (consecutive sentences up
    to ``WIDTH``; a longer sentence is a window of its own) and ``queries`` (a question and each
    question it asks: ``LexicalQuery.clauses``). ``headed``: the terms of the passage's title and
    headings, which every window holds (they name what each sentence is about)."""
    parts = sentences(normalized)
    whole_length = _length(normalized)
    if len(parts) <= 1 or whole_length <= WIDTH:
        whole = term_set(normalized) | headed
        return max(weighted(q, whole) for q in queries)
    # only the question's terms, and the words a Latin term matches by its stem, are read in
    # each sentence (``tokens.terms_in``): the relevance reads this for every result shown
    wanted = {t for q in queries for t in (*q.cjk_terms, *q.latin_terms)}
    stemmed = {s for q in queries for s in q.latin_stems}
    terms = []
    for part in parts:
        held = terms_in(part, wanted)
        if stemmed:
            words = latin_terms(part)
            held.update(w for w, s in zip(words, stems(words), strict=True) if s in stemmed)
        terms.append(held)
    # each sentence's length in the passage's own mix of scripts, read once
    per_character = whole_length / max(1, len(normalized))
    lengths = [len(p) * per_character for p in parts]
    best = max(weighted(q, set(headed)) for q in queries) if headed else 0.0
    for first in range(len(parts)):
        if not terms[first]:
            continue  # the window from the next sentence holds all this one would, and more
        held = set(headed) | terms[first]
        size = lengths[first]
        last = first + 1
        while last < len(parts) and size + lengths[last] <= WIDTH:
            held |= terms[last]
            size += lengths[last]
            last += 1
        best = max(best, *(weighted(q, held) for q in queries))
        if last == len(parts):
            break  # every later window is part of this one
    return best
