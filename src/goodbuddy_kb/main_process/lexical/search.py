"""The two lexical channels: `fts` (Latin words and numbers) and `cjk` (bigrams).

Each fetches its candidate pool by BM25 from its FTS5 table, limited to the requested libraries
and to enabled, retrievable chunks, then rescores with :mod:`scoring`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from goodbuddy_kb.main_process.lexical import scoring
from goodbuddy_kb.main_process.lexical.tokens import LexicalQuery, normalize, term_set

LexicalChannel = Literal["fts", "cjk"]


@dataclass(frozen=True)
class LexicalHit:
    chunk_id: str
    document_id: str
    library_id: str
    seq: int
    bm25: float
    features: scoring.Features
    score: float


def _candidates(
    conn: sqlite3.Connection, table: str, match: str, library_ids: Sequence[str], pool: int
) -> list[sqlite3.Row]:
    marks = ",".join("?" for _ in library_ids)
    return conn.execute(
        f"SELECT c.id, c.seq, c.document_id, c.library_id, c.index_text, bm25({table}) AS rank"
        f" FROM {table} JOIN chunks c ON c.seq = {table}.rowid"
        f" WHERE {table} MATCH ? AND c.library_id IN ({marks}) AND c.enabled = 1"
        " AND c.role != 'parent' ORDER BY rank, c.seq LIMIT ?",
        (match, *library_ids, pool),
    ).fetchall()


def search(
    conn: sqlite3.Connection,
    channel: LexicalChannel,
    library_ids: Sequence[str],
    query: LexicalQuery,
    pool: int,
) -> list[LexicalHit]:
    """Rank up to ``pool`` chunks for one channel; the same query and index give the same order."""
    match = query.cjk_match if channel == "cjk" else query.fts_match
    if match is None or not library_ids or pool <= 0:
        return []
    rows = _candidates(
        conn, "chunks_cjk" if channel == "cjk" else "chunks_fts", match, library_ids, pool
    )
    if not rows:
        return []
    best = max(-row["rank"] for row in rows) or 1.0
    terms = query.cjk_terms or query.single_chars if channel == "cjk" else query.latin_terms
    phrase_query = scoring.compact(query.phrase_text)
    hits = []
    for row in rows:
        normalized = normalize(row["index_text"])
        feats = scoring.features(
            bm25_norm=max(0.0, -row["rank"]) / best,
            terms=terms,
            chunk_tokens=term_set(normalized),
            phrase_query=phrase_query,
            chunk_compact=scoring.compact(normalized),
            compounds=query.compounds,
            chunk_normalized=normalized,
        )
        hits.append(
            LexicalHit(
                row["id"],
                row["document_id"],
                row["library_id"],
                row["seq"],
                -row["rank"],
                feats,
                feats.score(),
            )
        )
    # Ties fall back to the BM25 order, then the insertion order (ids change on a rebuild).
    hits.sort(key=lambda h: (-h.score, -h.bm25, h.seq))
    return hits
