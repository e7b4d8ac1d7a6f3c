"""The conversations' full-text index (``conversation_search``, migration 0022): the only code
that writes it, and the search over it.

Titles and message text are indexed the way the libraries' lexical channels index chunks
(``lexical.tokens``): Snowball stems of the Latin words in the ``fts`` column, CJK bigrams in the
``cjk`` column, so "报销" and "policies" find what the chunk search would. Every query term must
occur in one row (a title or one message): a conversation list filter narrows, it never ranks.
"""

from __future__ import annotations

import re
import sqlite3

from goodbuddy_kb.contracts.chat import MAX_SNIPPET_CHARACTERS
from goodbuddy_kb.main_process.lexical.tokens import (
    build_query,
    cjk_index_text,
    fts_index_text,
    quote,
)


def index_text(
    conn: sqlite3.Connection, conversation_id: str, message_id: str | None, text: str
) -> None:
    """(Re)index one title (``message_id`` None) or one message; empty text is not indexed."""
    if message_id is None:
        rows = conn.execute(
            "SELECT seq FROM conversation_search_rows"
            " WHERE conversation_id = ? AND message_id IS NULL",
            (conversation_id,),
        ).fetchall()
    else:
        rows = conn.execute(
            "SELECT seq FROM conversation_search_rows WHERE message_id = ?", (message_id,)
        ).fetchall()
    # The delete trigger drops the index rows with them.
    conn.executemany("DELETE FROM conversation_search_rows WHERE seq = ?", rows)
    if not text.strip():
        return
    cur = conn.execute(
        "INSERT INTO conversation_search_rows (conversation_id, message_id) VALUES (?, ?)",
        (conversation_id, message_id),
    )
    conn.execute(
        "INSERT INTO conversation_search (rowid, fts, cjk) VALUES (?, ?, ?)",
        (cur.lastrowid, fts_index_text(text), cjk_index_text(text)),
    )


def match_expression(query: str) -> str | None:
    """Every term of ``query`` (a stem, a CJK bigram, or a lone CJK character as a prefix),
    joined by AND; None when the query has no searchable term."""
    parsed = build_query(query)
    # No column filters (the table keeps no positions): a stem only occurs in ``fts`` and a
    # CJK token only in ``cjk``.
    parts = [quote(stem) for stem in dict.fromkeys(parsed.latin_stems)]
    parts += [quote(gram) for gram in parsed.cjk_terms]
    if not parsed.cjk_terms:
        parts += [f"({quote(ch)} * OR {quote(ch)})" for ch in parsed.single_chars]
    return " AND ".join(parts) if parts else None


#: The matching conversations (not deleted), pinned first, then newest activity, each with its
#: message count and the text of the row that matched (the title, '', ranks before any message).
SEARCH_SQL = """
WITH hits AS (
    SELECT r.conversation_id AS cid, min(coalesce(r.message_id, '')) AS hit
    FROM conversation_search s CROSS JOIN conversation_search_rows r ON r.seq = s.rowid
    WHERE conversation_search MATCH ? GROUP BY r.conversation_id
), top AS (
    SELECT c.*, hits.hit AS hit FROM hits JOIN conversations c ON c.id = hits.cid
    WHERE c.deleted_at IS NULL ORDER BY c.pinned DESC, c.updated_at DESC, c.id LIMIT ?
)
SELECT top.*,
    (SELECT count(*) FROM messages m WHERE m.conversation_id = top.id) AS n,
    coalesce((SELECT content FROM messages m WHERE m.id = top.hit), top.title) AS hit_text
FROM top ORDER BY top.pinned DESC, top.updated_at DESC, top.id
"""


def query_pattern(query: str) -> re.Pattern[str] | None:
    """What a snippet looks for: the query's words, CJK bigrams and stems, longest first."""
    parsed = build_query(query)
    words = sorted(
        {*parsed.cjk_terms, *parsed.single_chars, *parsed.latin_terms, *parsed.latin_stems},
        key=len,
        reverse=True,
    )
    if not words:
        return None
    return re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)


def snippet(text: str, pattern: re.Pattern[str] | None) -> str:
    """The text around the first place ``pattern`` occurs, at most ``MAX_SNIPPET_CHARACTERS``
    long (the start of the text when nothing occurs literally, e.g. a stem-only match)."""
    flat = " ".join(text.split())
    if len(flat) <= MAX_SNIPPET_CHARACTERS:
        return flat
    found = pattern.search(flat) if pattern is not None else None
    start = 0
    if found is not None:
        start = max(0, found.start() - MAX_SNIPPET_CHARACTERS // 3)
    piece = flat[start : start + MAX_SNIPPET_CHARACTERS - 2]
    return ("…" if start else "") + piece + ("…" if start + len(piece) < len(flat) else "")
