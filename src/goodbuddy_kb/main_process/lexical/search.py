"""The two lexical channels: `fts` (Latin words and numbers) and `cjk` (bigrams).

Each fetches its candidate pool by BM25 from its FTS5 table (the heading column weighted at
HEADING_WEIGHT), limited to the requested libraries and to enabled, retrievable chunks, then
rescores with :mod:`scoring`: a query word counts fully when the chunk or its headings hold it
exactly, partly when only its stem matches.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from goodbuddy_kb.main_process.lexical import scoring, vocab
from goodbuddy_kb.main_process.lexical.tokens import (
    LexicalQuery,
    latin_terms,
    normalize,
    quote,
    stems,
    terms_in,
)

LexicalChannel = Literal["fts", "cjk"]
#: BM25 weight of the heading column (title and heading path) against the chunk text's 1.0.
HEADING_WEIGHT = 0.5


@dataclass(frozen=True)
class LexicalHit:
    chunk_id: str
    document_id: str
    library_id: str
    seq: int
    bm25: float
    features: scoring.Features
    score: float


#: Pages of FTS-ranked rows read before the candidates fall back to one joined query.
PAGES = 2
#: The smallest first page of ranked rows.
MIN_PAGE = 32


def _candidates(
    conn: sqlite3.Connection, table: str, match: str, library_ids: Sequence[str], pool: int
) -> list[dict[str, Any]]:
    """The ``pool`` best enabled, retrievable chunks of the libraries by BM25 (ties by seq).

    The MATCH is ranked on its own and only the rows on its first pages are looked up in
    ``chunks`` (library, enabled, role, text): filtering an ordered list keeps its order, so the
    result is the joined query's, at the cost of the MATCH plus a lookup per candidate instead
    of a join, and a sort carrying chunk text, over every match. When the libraries hold a small
    part of the matches, the joined query answers after ``PAGES`` pages."""
    marks = ",".join("?" for _ in library_ids)
    wanted = set(library_ids)
    kept: list[dict[str, Any]] = []
    offset, page = 0, max(pool * 2, MIN_PAGE)
    for _ in range(PAGES):
        # Rank on rowids alone: asking for the text here would make the sort carry the text of
        # every match (measured twice the time of the MATCH at 10,000 chunks); the text of the
        # page's rows is read below, by rowid.
        ranked = conn.execute(
            f"SELECT rowid, bm25({table}, 1.0, {HEADING_WEIGHT}) AS rank"
            f" FROM {table} WHERE {table} MATCH ? ORDER BY rank, rowid LIMIT ? OFFSET ?",
            (match, page, offset),
        ).fetchall()
        if ranked:
            order = {row[0]: i for i, row in enumerate(ranked)}
            rank_of = {row[0]: row[1] for row in ranked}
            # Which of the page's rows count (library, enabled, role) costs an index lookup per
            # row; the texts are then read for the rows that fill the pool and no others.
            eligible = conn.execute(
                "SELECT seq, library_id FROM chunks"
                f" WHERE seq IN ({','.join('?' for _ in order)}) AND enabled = 1"
                " AND role != 'parent'",
                tuple(order),
            ).fetchall()
            seqs = sorted((r[0] for r in eligible if r[1] in wanted), key=order.__getitem__)
            seqs = seqs[: pool - len(kept)]
            if seqs:
                rows = conn.execute(
                    "SELECT c.id, c.seq, c.document_id, c.library_id, c.index_text,"
                    f" t.text AS indexed, t.heading AS heading FROM chunks c"
                    f" JOIN {table} t ON t.rowid = c.seq"
                    f" WHERE c.seq IN ({','.join('?' for _ in seqs)})",
                    tuple(seqs),
                ).fetchall()
                by_seq = {r["seq"]: r for r in rows}
                kept += [{**dict(by_seq[q]), "rank": rank_of[q]} for q in seqs if q in by_seq]
        if len(kept) >= pool or len(ranked) < page:
            return kept[:pool]
        offset += page
        page *= 4
    joined = conn.execute(
        f"SELECT c.id, c.seq, c.document_id, c.library_id, c.index_text, {table}.text AS indexed,"
        f" {table}.heading AS heading, bm25({table}, 1.0, {HEADING_WEIGHT}) AS rank"
        f" FROM {table} JOIN chunks c ON c.seq = {table}.rowid"
        f" WHERE {table} MATCH ? AND c.library_id IN ({marks}) AND c.enabled = 1"
        " AND c.role != 'parent' ORDER BY rank, c.seq LIMIT ?",
        (match, *library_ids, pool),
    ).fetchall()
    return [dict(r) for r in joined]


#: Libraries above this many chunks bound the rows one lexical query ranks (below, every row
#: holding any query term is ranked, exactly as BM25 over the whole OR query).
LARGE_LIBRARY_CHUNKS = 200_000
#: Most matching rows a query ranks by BM25 in a large library. FTS5 ranks a row in ~2 µs, and
#: at a million chunks a question's common words match ~100,000 rows (200 ms); so the query's
#: rarest terms are matched, rarest first, until their rows reach this many, and the common
#: rest count only in the rescoring (coverage, phrase), as a common-terms query does. A row
#: holding none of the rare terms can then be missed: the price of ~60 ms at any size.
MATCH_BUDGET = 30_000


def bounded_match(
    conn: sqlite3.Connection,
    channel: LexicalChannel,
    query: LexicalQuery,
    term_rows: vocab.TermRows | None = None,
) -> str | None:
    """The channel's MATCH expression, its terms cut to :data:`MATCH_BUDGET` rows in a
    library above :data:`LARGE_LIBRARY_CHUNKS` chunks (the whole expression otherwise); the
    terms' rows are read through ``term_rows`` (the request's) when given."""
    match = query.cjk_match if channel == "cjk" else query.fts_match
    terms = list(query.cjk_terms) if channel == "cjk" else list(dict.fromkeys(query.latin_stems))
    if match is None or len(terms) < 2 or vocab.chunk_count(conn) <= LARGE_LIBRARY_CHUNKS:
        return match
    table = "chunks_cjk" if channel == "cjk" else "chunks_fts"
    rows = (term_rows or vocab.TermRows(conn)).of(table, terms)
    present = sorted((t for t in terms if rows[t] > 0), key=lambda t: (rows[t], t))
    kept: list[str] = []
    total = 0
    for term in present:
        if kept and total + rows[term] > MATCH_BUDGET:
            break
        kept.append(term)
        total += rows[term]
    if len(kept) == len(present):
        return match
    parts = [quote(t) for t in kept]
    if channel == "fts":  # a compound's phrase is rare by nature: it always counts
        for compound in query.compounds:
            words = latin_terms(compound)
            if len(words) > 1:
                parts.append(quote(" ".join(stems(words))))
    return " OR ".join(parts)


def search(
    conn: sqlite3.Connection,
    channel: LexicalChannel,
    library_ids: Sequence[str],
    query: LexicalQuery,
    pool: int,
    term_rows: vocab.TermRows | None = None,
) -> list[LexicalHit]:
    """Rank up to ``pool`` chunks for one channel; the same query and index give the same order."""
    if not library_ids or pool <= 0:
        return []
    match = bounded_match(conn, channel, query, term_rows)
    if match is None:
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
        heading = (row["heading"] or "").split()
        tokens = terms_in(normalized, terms)  # coverage only asks about the query's terms
        if channel == "cjk":
            tokens.update(heading)
        feats = scoring.features(
            bm25_norm=max(0.0, -row["rank"]) / best,
            terms=terms,
            chunk_tokens=tokens,
            phrase_query=phrase_query,
            chunk_compact=scoring.compact(normalized),
            compounds=query.compounds,
            chunk_normalized=normalized,
            term_stems=query.latin_stems if channel == "fts" else (),
            chunk_stems={*(row["indexed"] or "").split(), *heading}
            if channel == "fts"
            else frozenset(),
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
