"""Where a long text may be cut: the best natural boundary within reach.

Priority: paragraph break, then sentence end (。！？.!? and full-width forms), then clause
(，；,;：), then whitespace, then a hard cut. ASCII ``.,:;!?`` count only when followed by
whitespace or the end, so ``v2.3.1``, ``1,000``, ``https://`` and ``src/app/main.py`` stay whole.
"""

from __future__ import annotations

import re

_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE = re.compile(r"[。！？!?．｡…]+[”’」』）)\"']*|[.!?]+[\"')\]]*(?=\s|$)|\n")
_CLAUSE = re.compile(r"[，；：、,;:](?=\s|$)|[，；：、]")
_SPACE = re.compile(r"\s+")
_LEVELS = (_PARAGRAPH, _SENTENCE, _CLAUSE, _SPACE)


def _last_end(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int | None:
    """The end of the last match of ``pattern`` ending within (lo, hi]."""
    best = None
    for match in pattern.finditer(text, max(0, lo - 8), hi):
        if lo < match.end() <= hi:
            best = match.end()
    return best


def find_cut(text: str, start: int, limit: int) -> int:
    """A cut position in ``(start, start + limit]``: the best boundary, preferring long pieces."""
    hi = min(len(text), start + limit)
    if hi >= len(text):
        return len(text)
    half = start + limit // 2
    for pattern in _LEVELS:
        cut = _last_end(pattern, text, half, hi)
        if cut is not None:
            return cut
    for pattern in _LEVELS:
        cut = _last_end(pattern, text, start, half)
        if cut is not None and cut > start:
            return cut
    return hi  # a single unbreakable token longer than the limit: cut hard


def overlap_start(text: str, cut: int, overlap: int, floor: int) -> int:
    """Where the next piece starts so it repeats at most ``overlap`` characters before ``cut``,
    beginning at a boundary (never mid-word); ``cut`` itself when no boundary is in reach."""
    if overlap <= 0:
        return cut
    lo = max(floor, cut - overlap)
    for pattern in (_SENTENCE, _CLAUSE, _SPACE):
        for match in pattern.finditer(text, lo, cut):
            if lo <= match.end() < cut:
                return match.end()
    return cut


def split_spans(text: str, limit: int, overlap: int = 0) -> list[tuple[int, int]]:
    """Cover ``text`` with spans of at most ``limit`` characters, overlapping by ≤ ``overlap``."""
    spans: list[tuple[int, int]] = []
    start = 0
    while start < len(text):
        cut = find_cut(text, start, limit)
        spans.append((start, cut))
        if cut >= len(text):
            break
        nxt = overlap_start(text, cut, overlap, start + 1)
        start = nxt if nxt > start else cut
    return spans
