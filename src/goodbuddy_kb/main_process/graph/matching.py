"""Exact, case- and width-folded matching of entity names and aliases in text with one
Aho-Corasick automaton (pyahocorasick); overlapping matches resolve to the longest, leftmost.

Offsets always refer to the original text: folding (NFKC width folding, casefold) is applied
character by character, so a folded position maps back to exactly one original position.

The automaton reads names and text as UTF-32 code units spelled as four Latin-1 characters
each: pyahocorasick looks a node's children up one by one, and thousands of Chinese names give
its root thousands of children; four bytes per character leave at most 256 at any node, which
makes matching 5,000 names about three times faster. A match starts on a multiple of four.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick

from goodbuddy_kb.contracts.graph import MAX_NAME_CHARACTERS


def fold_char(ch: str) -> str:
    """One character folded for matching; never changes the length (1 char → 1 char)."""
    folded = unicodedata.normalize("NFKC", ch).casefold()
    return folded if len(folded) == 1 else ch.casefold()[:1] or ch


#: Full-width ASCII and the ideographic space, the width folding NFKC would do for them.
_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def fold(text: str) -> str:
    """Width- and case-folded, the same length as ``text`` (a fast path for the common case,
    per character where a character would fold to more or fewer characters)."""
    quick = text.translate(_WIDTH).casefold()
    if len(quick) == len(text):
        return quick
    return "".join(fold_char(ch) for ch in text)


def normalise_name(name: str) -> str:
    """The key entity resolution compares: folded, inner whitespace collapsed."""
    return " ".join(fold(name).split())


def _wide(text: str) -> str:
    """``text`` as four Latin-1 characters per character (the automaton's alphabet)."""
    return text.encode("utf-32-be", "surrogatepass").decode("latin-1")


def _is_word(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    key: str  # the normalised name that matched
    payload: tuple[str, ...]  # what the name stands for (entity ids, or type keys)


class Matcher:
    """Many names at once. ``payload`` per name: the things that name stands for. The automaton
    is built once and reused for every text (a caller keeps the matcher)."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        grouped: dict[str, list[str]] = {}
        for name, value in names:
            key = normalise_name(name)
            if len(key) > MAX_NAME_CHARACTERS:
                continue  # written before names were bounded: it matches nothing a chunk holds
            if len(key) >= 2 or (key and not key.isascii()):
                grouped.setdefault(key, []).append(value)
        self._automaton = ahocorasick.Automaton()
        for key, values in grouped.items():
            # the word-boundary checks a Latin end needs are decided once, here
            self._automaton.add_word(
                _wide(key),
                (key, tuple(dict.fromkeys(values)), len(key), _is_word(key[0]), _is_word(key[-1])),
            )
        self.size = len(grouped)
        if self.size:
            self._automaton.make_automaton()

    def find(self, text: str, folded: str | None = None) -> list[Match]:
        """Non-overlapping matches in ``text`` (``folded``: ``fold(text)`` when the caller has
        it already)."""
        if not self.size:
            return []
        if folded is None:
            folded = fold(text)
        last = len(folded)
        found: list[tuple[int, int, str, tuple[str, ...]]] = []
        for end_index, (key, payload, size, word_start, word_end) in self._automaton.iter(
            _wide(folded)
        ):
            if end_index & 3 != 3:
                continue  # never happens for real text: a match inside a character
            end = (end_index + 1) >> 2
            start = end - size
            # Latin names match whole words only ("api" is not inside "capital").
            if word_start and start > 0 and _is_word(folded[start - 1]):
                continue
            if word_end and end < last and _is_word(folded[end]):
                continue
            found.append((start, end, key, payload))
        return [Match(s, e, k, p) for s, e, k, p in _longest_leftmost(found)]


def _longest_leftmost(
    found: list[tuple[int, int, str, tuple[str, ...]]],
) -> list[tuple[int, int, str, tuple[str, ...]]]:
    # the automaton reports by end position; without overlaps (the usual case) that is the
    # answer already, in order
    ordered = sorted(found)
    if all(ordered[i][1] <= ordered[i + 1][0] for i in range(len(ordered) - 1)):
        return ordered
    chosen: list[tuple[int, int, str, tuple[str, ...]]] = []
    for m in sorted(found, key=lambda m: (m[0] - m[1], m[0])):
        if all(m[1] <= c[0] or m[0] >= c[1] for c in chosen):
            chosen.append(m)
    return sorted(chosen)
