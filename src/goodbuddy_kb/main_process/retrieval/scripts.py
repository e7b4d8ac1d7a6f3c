"""Which candidates the lexical channels could have matched at all.

Full text and CJK bigrams match a question's words in a passage's words. A question written in
one script only (an English question; a Chinese one with no Latin word) can match nothing in a
passage written in the other: there their silence says nothing about the passage. The share of
a passage's words in the question's scripts — CJK characters and Latin words counted alike —
measures how far they could have looked; a passage with at least ``OBSERVABLE_SHARE`` of its
words there counts as fully seen (a Chinese passage quoting English names, an English one
citing Chinese terms). Fusion (``fusion.adaptive_fusion``) then counts the lexical channels'
silence less against a passage they could not see, and the relevance judges it on the vector's
evidence alone (``calibration.VECTOR_ONLY``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from goodbuddy_kb.main_process.lexical import LexicalQuery
from goodbuddy_kb.main_process.lexical.tokens import script_counts

OBSERVABLE_SHARE = 0.5


def share_in(text: str, cjk: bool, latin: bool) -> float:
    """The share of ``text``'s words (CJK characters, Latin words) in the scripts asked for."""
    han, words = script_counts(text)
    if han + words == 0:
        return 1.0
    return ((han if cjk else 0) + (words if latin else 0)) / (han + words)


def _scripts(query: LexicalQuery) -> tuple[bool, bool]:
    return bool(query.cjk_terms or query.single_chars), bool(query.latin_terms)


def visible(query: LexicalQuery, text: str) -> float:
    """How far the lexical channels could see ``text``, 0–1 (wholly for a question in both
    scripts, or none)."""
    cjk, latin = _scripts(query)
    if cjk == latin:
        return 1.0
    return min(1.0, share_in(text, cjk, latin) / OBSERVABLE_SHARE)


def observable(
    conn: sqlite3.Connection, query: LexicalQuery, chunk_ids: Iterable[str]
) -> dict[str, float]:
    """How far the lexical channels could see each candidate, 0–1, for the candidates they could
    not wholly see; empty for a question in both scripts (or none), which they can always read."""
    cjk, latin = _scripts(query)
    ids = list(dict.fromkeys(chunk_ids))
    if cjk == latin or not ids:
        return {}
    marks = ",".join("?" for _ in ids)
    out: dict[str, float] = {}
    for chunk_id, content in conn.execute(
        f"SELECT id, content FROM chunks WHERE id IN ({marks})", ids
    ):
        seen = visible(query, content)
        if seen < 1.0:
            out[chunk_id] = seen
    return out
