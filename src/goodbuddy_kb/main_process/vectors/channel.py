"""The vector channel of retrieval: embed the query, scan each library's serving version (the
current one, or a library's first version while it fills), verify the winners against the
chunks table, and explain any degradation — including how much of a library the vectors cover.

The backend never falls back to another provider or model: no usable index means the channel
is degraded, with the reason.
"""

from __future__ import annotations

import sqlite3
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from goodbuddy_kb.contracts.errors import CancelledError, KbError
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.retrieval import VectorCoverage
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings import language
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.storage.libraries import have_retrievable_chunks
from goodbuddy_kb.main_process.vectors import bookkeeping, store
from goodbuddy_kb.main_process.vectors.scanner import ScanResult, scan

#: Extra candidates scanned beyond the pool so that rows dropped by verification cannot shrink it.
VERIFY_MARGIN = 16


@dataclass(frozen=True)
class VectorHit:
    chunk_id: str
    document_id: str
    library_id: str
    similarity: float
    seq: int = 0


@dataclass
class VectorResult:
    hits: list[VectorHit] = field(default_factory=list)
    scanned: int = 0
    elapsed_ms: float = 0.0
    embed_ms: float = 0.0
    #: Why the channel degraded, each raised with its message code.
    degraded: list[str] = field(default_factory=list)
    #: The query's similarity to the library at large: mean and standard deviation over every
    #: scanned row (what a hit's similarity is measured against).
    background_mean: float = 0.0
    background_std: float = 0.0
    #: Libraries searched whose vectors cover only part of them (a first version filling).
    coverage: list[VectorCoverage] = field(default_factory=list)
    #: Each searched library's share of retrievable chunks with a live vector.
    chunk_share: dict[str, float] = field(default_factory=dict)
    #: The bundled model and the question's embedding by it (its language kept), when it served
    #: a library: what the relevance reads a passage's closest piece with (``closeness.py``).
    question: tuple[EmbeddingProvider, Matrix] | None = None


@dataclass
class Pending:
    """A vector search under way: its SQL part done on the caller's connection, the query's
    embedding and the scans running (or run) on their own (:func:`begin`), the hits' lookup
    left to :func:`finish` on the same connection."""

    result: VectorResult
    pool: int
    versions: list[store.Version] = field(default_factory=list)
    work: Future[list[tuple[store.Version, ScanResult | None]]] | None = None


#: Where the query's embedding and the scans run while the caller's thread runs the lexical
#: and graph channels: they are NumPy, ONNX Runtime or a provider's network call (all release
#: the interpreter lock), the lexical channels SQLite (which does too), so on two cores the
#: channels take about as long as the slower of them instead of their sum. Idle workers block
#: on a queue: no CPU at rest.
_workers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kb-vector")


def search(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_ids: list[str],
    provider: EmbeddingProvider | None,
    query: str,
    pool: int,
    cancel: CancelToken,
) -> VectorResult:
    """The whole search on the caller's thread."""
    return finish(conn, begin(conn, data_dir, library_ids, provider, query, pool, cancel, False))


def begin(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_ids: list[str],
    provider: EmbeddingProvider | None,
    query: str,
    pool: int,
    cancel: CancelToken,
    background: bool = True,
) -> Pending:
    """Read what the search needs from ``conn`` (each library's serving version, its coverage
    and dead rows), then embed the query and scan: on a worker thread when ``background``
    (the caller goes on and calls :func:`finish`), else here."""
    pending = Pending(VectorResult(), pool)
    result = pending.result
    if provider is None:
        result.degraded.append(Reason("vector.no_model_hint"))
        return pending
    served: dict[str, EmbeddingProvider] = {}  # each version's query is embedded by its maker
    dead: dict[str, npt.NDArray[np.int64]] = {}
    mixed: set[str] = set()  # the versions of libraries holding both languages
    for library_id in library_ids:
        version = store.serving(conn, library_id)
        maker = None if version is None else provider.variant_for(version.fingerprint, version.dims)
        if version is None:
            if have_retrievable_chunks(conn, [library_id]):  # an empty library lacks nothing
                result.degraded.append(Reason("vector.not_finished"))
        elif maker is None:
            result.degraded.append(Reason("vector.incompatible"))
        else:
            pending.versions.append(version)
            served[version.id] = maker
            books = bookkeeping.books(conn, version)
            dead[version.id] = books.dead
            if books.bilingual:
                mixed.add(version.id)
            _note_coverage(result, version, books)
    if not pending.versions:
        return pending
    paths = {v.id: store.path_of(data_dir, v.id) for v in pending.versions}

    def work() -> list[tuple[store.Version, ScanResult | None]]:
        return _embed_and_scan(
            result, pending.versions, served, dead, paths, query, pool, cancel, mixed
        )

    if background:
        pending.work = _workers.submit(work)
    else:
        done: Future[list[tuple[store.Version, ScanResult | None]]] = Future()
        try:
            done.set_result(work())
        except BaseException as exc:
            done.set_exception(exc)
        pending.work = done
    return pending


def _embed_and_scan(
    result: VectorResult,
    versions: list[store.Version],
    served: dict[str, EmbeddingProvider],
    dead: dict[str, npt.NDArray[np.int64]],
    paths: dict[str, Path],
    query: str,
    pool: int,
    cancel: CancelToken,
    mixed: set[str] | frozenset[str] = frozenset(),
) -> list[tuple[store.Version, ScanResult | None]]:
    """The query's embedding by each version's maker, then each version's scan (None for a
    version whose file went meanwhile); no database here. A version in ``mixed`` (a library
    holding both languages) is scanned with the bundled model's question without its language
    (``embeddings/language.py``)."""
    started = time.perf_counter()
    vectors: dict[int, Matrix] = {}
    neutral: dict[int, Matrix] = {}
    try:
        for maker in served.values():
            if id(maker) not in vectors:
                vectors[id(maker)] = maker.embed_query(query)
                neutral[id(maker)] = language.neutral(maker, vectors[id(maker)])
                if maker.kind == "local" and result.question is None:
                    result.question = (maker, vectors[id(maker)])
    except CancelledError:
        raise
    except KbError as exc:
        result.degraded.append(Reason("vector.query_not_embedded", reason=exc.message))
        return []
    result.embed_ms = (time.perf_counter() - started) * 1000
    scans: list[tuple[store.Version, ScanResult | None]] = []
    scan_started = time.perf_counter()
    for version in versions:
        try:
            found = scan(
                paths[version.id],
                version.row_count,
                version.dims,
                (neutral if version.id in mixed else vectors)[id(served[version.id])],
                pool + VERIFY_MARGIN,
                cancel,
                dead[version.id],
            )
        except FileNotFoundError:  # a filling first version failed (its file went) meanwhile
            scans.append((version, None))
            continue
        scans.append((version, found))
    result.elapsed_ms = (time.perf_counter() - scan_started) * 1000
    return scans


def finish(conn: sqlite3.Connection, pending: Pending) -> VectorResult:
    """Wait for the embedding and scans, then verify the winners against the chunks table."""
    result = pending.result
    if pending.work is None:
        return result
    scans = pending.work.result()
    candidates: list[VectorHit] = []
    total = total_sq = 0.0
    scored = 0
    for version, found in scans:
        if found is None:
            result.degraded.append(Reason("vector.not_finished"))
            continue
        # the live vectors the question was compared with: a dead row (a changed, switched-off
        # or deleted chunk's) is read but skipped, and counting it said "1,200 vectors scanned"
        # of a library holding 1,000
        result.scanned += found.scored
        total, total_sq, scored = (
            total + found.score_sum,
            total_sq + found.score_sq_sum,
            scored + found.scored,
        )
        if not len(found.rows):
            continue
        score_of = dict(zip(found.rows.tolist(), found.scores.tolist(), strict=True))
        marks = ",".join("?" for _ in score_of)
        rows = conn.execute(
            "SELECT v.row, c.id, c.document_id, c.library_id, c.seq FROM vector_rows v JOIN chunks c ON c.seq = v.chunk_seq"
            f" WHERE v.version_id = ? AND v.row IN ({marks}) AND v.alive = 1 AND v.checksum = c.checksum"
            " AND c.enabled = 1 AND c.role != 'parent'",
            (version.id, *score_of),
        ).fetchall()
        candidates.extend(VectorHit(r[1], r[2], r[3], float(score_of[r[0]]), r[4]) for r in rows)
    if scored:
        result.background_mean = total / scored
        result.background_std = max(0.0, total_sq / scored - result.background_mean**2) ** 0.5
    candidates.sort(key=lambda h: (-h.similarity, h.seq))
    result.hits = candidates[: pending.pool]
    return result


def _note_coverage(result: VectorResult, version: store.Version, books: bookkeeping.Books) -> None:
    """Say how much of the library the version covers: a first version still filling counts
    documents ("vectors cover 420/2,000 documents so far"), a current one its missing chunks."""
    result.chunk_share[version.library_id] = books.chunk_share
    if not books.gaps:
        return
    if version.state != "building":  # a current version a few new chunks' vectors behind
        result.degraded.append(Reason("vector.partial", count=books.gaps))
        return
    covered, documents = books.documents
    result.coverage.append(
        VectorCoverage(
            library_id=version.library_id,
            documents_covered=covered,
            documents_total=documents,
            chunks_covered=books.chunks - books.gaps,
            chunks_total=books.chunks,
        )
    )
    result.degraded.append(Reason("vector.filling", covered=f"{covered:,}", total=f"{documents:,}"))
