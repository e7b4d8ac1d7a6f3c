"""How informative each query term is in the index: its inverse document frequency, read from
the full-text tables' own vocabularies (FTS5 ``fts5vocab``, opened per connection in ``temp``).

Relevance calibration weighs the query terms a result holds by these (``rerank.features``'s
``weightedCoverage``): a result that misses the question's rare words ("股票期权", "gym") is
weak evidence however many of its common ones ("公司", "what") it holds, and a term the
libraries do not hold at all weighs the most. BM25's idf, over every chunk of every library (the
vocabularies are per table, not per library).
"""

from __future__ import annotations

import math
import sqlite3
import threading

from goodbuddy_kb.main_process.lexical.tokens import LexicalQuery
from goodbuddy_kb.main_process.storage.keys import database_key

_VOCAB = {"chunks_cjk": "temp.kb_vocab_cjk", "chunks_fts": "temp.kb_vocab_fts"}


def _vocabulary(conn: sqlite3.Connection, table: str) -> str:
    name = _VOCAB[table]
    exists = conn.execute(
        "SELECT 1 FROM temp.sqlite_master WHERE name = ?", (name.split(".")[1],)
    ).fetchone()
    if not exists:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {name} USING fts5vocab(main, {table}, 'row')"
        )
    return name


def frequencies(conn: sqlite3.Connection, table: str, terms: list[str]) -> dict[str, int]:
    """How many rows of ``table`` hold each term."""
    if not terms:
        return {}
    vocab = _vocabulary(conn, table)
    found: dict[str, int] = {}
    for term in set(terms):  # one equality lookup each: the vocabulary is indexed by term
        row = conn.execute(f"SELECT doc FROM {vocab} WHERE term = ?", (term,)).fetchone()
        found[term] = int(row[0]) if row else 0
    return found


class TermRows:
    """:func:`frequencies` read once per request: a large library's lexical channels read the
    rows of the query's terms to bound their MATCH, and the relevance weighs the same terms by
    idf (each read walks the term's doclist: ~10 ms a query at a million chunks)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._rows: dict[tuple[str, str], int] = {}

    def of(self, table: str, terms: list[str]) -> dict[str, int]:
        missing = [t for t in dict.fromkeys(terms) if (table, t) not in self._rows]
        for term, rows in frequencies(self.conn, table, missing).items():
            self._rows[(table, term)] = rows
        return {t: self._rows[(table, t)] for t in terms}


def idf(n: int, df: int) -> float:
    """BM25's inverse document frequency (never negative)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


#: The retrievable chunk count per database, stamped with the generation migration 0017's
#: triggers move on every chunk added, deleted, disabled or moved to another role: counting
#: the chunks table on every query cost ~100 ms at a million chunks (~10 ms at 100,000).
_counts: dict[str, tuple[int, int]] = {}
_counts_lock = threading.Lock()


def chunk_count(conn: sqlite3.Connection) -> int:
    """Retrievable (non-parent) chunks in the database, counted again only after a write that
    can change them."""
    (generation,) = conn.execute(
        "SELECT generation FROM vector_books_generation WHERE id = 1"
    ).fetchone()
    key = database_key(conn)
    with _counts_lock:
        cached = _counts.get(key)
    if cached is not None and cached[0] == generation:
        return cached[1]
    (n,) = conn.execute("SELECT COUNT(*) FROM chunks WHERE role != 'parent'").fetchone()
    with _counts_lock:
        if len(_counts) >= 64:
            _counts.clear()
        _counts[key] = (int(generation), int(n))
    return int(n)


class TermWeights(dict[str, float]):
    """Each query term's idf, and the CJK query terms the index holds nowhere (``absent``:
    the relevance looks for them shortened, ``scoring.elided``)."""

    absent: frozenset[str] = frozenset()


def term_weights(
    conn: sqlite3.Connection, query: LexicalQuery, rows: TermRows | None = None
) -> TermWeights:
    """Each CJK and Latin query term → its idf (a Latin term by its stem, as indexed); the
    rows already read for this request are taken from ``rows``."""
    rows = rows or TermRows(conn)
    n = chunk_count(conn)
    cjk = rows.of("chunks_cjk", list(query.cjk_terms))
    stems = list(query.latin_stems) or list(query.latin_terms)
    latin = rows.of("chunks_fts", stems)
    weights = TermWeights((t, idf(n, cjk[t])) for t in query.cjk_terms)
    for term, stem in zip(query.latin_terms, stems, strict=False):
        weights[term] = idf(n, latin.get(stem, 0))
    weights.absent = frozenset(t for t in query.cjk_terms if cjk[t] == 0)
    return weights
