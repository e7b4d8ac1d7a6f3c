"""Vectorisation: embed the chunks that lack vectors, in batches, with retry and backoff.

* Incremental (the current version was made by the configured provider): new and changed chunks
  are appended to it; it keeps serving throughout.
* Full (no current version, another fingerprint, or an explicit rebuild): a new version is built
  beside the current one and swapped in only when complete and validated. A failure or a cancel
  leaves the previous version serving and records the failure on its own — except a library's
  first version, which is searched as it fills and has nothing older to fall back on: it keeps
  what it holds (made current with its gaps, as when its import outruns it), and the next
  vectorisation embeds the rest.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

from goodbuddy_kb.contracts.errors import CancelledError, KbError, TimeoutError_, UnavailableError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider, Matrix
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.vectors import store

log = logging.getLogger(__name__)
RETRIES = 3
BACKOFF_S = (0.2, 0.6, 1.5)
#: Consecutive failed batches after which the service is taken to be down.
MAX_FAILED_BATCHES = 2
#: Passes over chunks that changed during a full build, before it is validated and swapped.
CATCH_UP_PASSES = 5
#: Seconds between two looks for new chunks while a first version waits on its import.
IMPORT_POLL_S = 0.2
#: Seconds between two recounts of a first version's total while its import adds chunks.
TOTAL_REFRESH_S = 2.0

Progress = Callable[[int, int, int], None]  # done, total, failed chunks


#: Seconds between two progress reports while a batch is being embedded (the task's chunks/s
#: and ETA stay current even when one batch takes longer than that).
HEARTBEAT_S = 1.0
#: The first batch is small so that the first progress (and a first rate) arrives quickly.
FIRST_BATCH = 2


@dataclass
class BuildReport:
    full: bool
    embedded: int = 0
    failed_documents: set[str] = field(default_factory=set)
    failed_rows: list[int] = field(default_factory=list)
    error: str | None = None


def _batches(todo: list[sqlite3.Row], size: int) -> list[list[sqlite3.Row]]:
    if not todo:
        return []
    size = max(1, size)
    first = min(size, FIRST_BATCH)
    return [todo[:first]] + [todo[i : i + size] for i in range(first, len(todo), size)]


def _wait(future: Future[Matrix], cancel: CancelToken, heartbeat: Callable[[], None]) -> Matrix:
    """The batch's vectors, reporting progress every HEARTBEAT_S while the engine works."""
    while True:
        try:
            return future.result(timeout=HEARTBEAT_S)
        except FutureTimeout:
            heartbeat()


def embed_with_retry(provider: EmbeddingProvider, texts: list[str], cancel: CancelToken) -> Matrix:
    """Passage vectors for ``texts``, retried with backoff on a timeout or an unavailable
    service; the last error is raised when every attempt failed."""
    last: KbError | None = None
    for attempt in range(RETRIES):
        cancel.check()
        try:
            return provider.embed_passages(texts)
        except (UnavailableError, TimeoutError_) as exc:
            last = exc
            time.sleep(BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)])
    assert last is not None
    raise last


def vectorise(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_id: str,
    provider: EmbeddingProvider,
    cancel: CancelToken,
    progress: Progress | None = None,
    rebuild: bool = False,
    loading: Callable[[int], None] | None = None,
    importing: Callable[[], bool] | None = None,
) -> BuildReport:
    """Embed the library's chunks that lack a vector (see the module's docstring); ``loading``
    hears the number of chunks to embed while the provider loads, before the first batch;
    ``importing`` says whether a sync of the library is still adding chunks (a first version
    keeps embedding what it adds until it ends)."""
    current = store.current(conn, library_id)
    if loading is not None:
        # The task shows its size before the provider is asked anything: a remote one is
        # probed for its dimensions, and a failed probe still says how many chunks waited.
        loading(_waiting(conn, library_id, provider, rebuild, current))
    full = rebuild or current is None or current.fingerprint != provider.fingerprint
    if full:
        target = store.create(
            conn, data_dir, library_id, provider.fingerprint, provider.label, provider.dimensions
        )
    else:
        assert current is not None
        target = current
    report = BuildReport(full=full)
    todo = store.missing(conn, library_id, target.id, with_text=False)
    total = len(todo)
    _mark(conn, {r["document_id"] for r in todo}, "running", None)
    failed_batches = 0

    refreshed = time.monotonic()

    def heartbeat(recount: bool = False) -> None:
        nonlocal total, refreshed
        if progress is None:
            return
        done = report.embedded + len(report.failed_rows)
        if current is None and (recount or time.monotonic() - refreshed >= TOTAL_REFRESH_S):
            # a first version filling beside its import: the total grows with the import
            refreshed = time.monotonic()
            total = max(total, done + store.count_missing(conn, library_id, target.id))
        progress(done, max(total, done), len(report.failed_documents))

    def embed_rows(keys: list[sqlite3.Row]) -> None:
        """Embed ``keys`` in batches: while one batch is embedded, the next one's texts are read
        from SQLite and the previous one's vectors written, so the engine never waits for the
        database."""
        nonlocal failed_batches
        with ThreadPoolExecutor(1, thread_name_prefix="kb-embed-feed") as embedder:
            pending: tuple[list[sqlite3.Row], Future[Matrix]] | None = None
            for batch_keys in [*_batches(keys, provider.passage_batch), None]:
                cancel.check()
                submitted = None
                if batch_keys is not None:
                    batch = store.chunk_texts(conn, [r["seq"] for r in batch_keys])
                    texts = [r["index_text"] for r in batch]
                    submitted = (batch, embedder.submit(embed_with_retry, provider, texts, cancel))
                if pending is not None:
                    batch, future = pending
                    try:
                        matrix = _wait(future, cancel, heartbeat)
                        store.append(
                            conn,
                            data_dir,
                            store.get(conn, target.id),
                            [(r["seq"], r["checksum"]) for r in batch],
                            matrix,
                        )
                        report.embedded += len(batch)
                        failed_batches = 0
                        # a first version is searched as it fills, and rows added to the
                        # current one as they land: their documents say so
                        ids = {r["document_id"] for r in batch}
                        _done_where_whole(conn, target.id, ids, serving=not full or current is None)
                    except (UnavailableError, TimeoutError_, ValueError) as exc:
                        reason = exc.message if isinstance(exc, KbError) else str(exc)
                        report.error = reason
                        report.failed_documents |= {r["document_id"] for r in batch}
                        report.failed_rows += [r["seq"] for r in batch]
                        failed_batches += 1
                        if full or failed_batches >= MAX_FAILED_BATCHES:
                            raise UnavailableError(reason) from exc
                    heartbeat()
                pending = submitted

    try:
        if total:
            # the task shows its size before the model has loaded
            heartbeat() if loading is None else loading(total)
            provider.load()
        embed_rows(todo)
        if full:
            # Syncs and rebuilds run beside vectorisation and may have changed chunks while
            # this version was built: embed what they added before validating and swapping.
            # A library's first version, started while its first sync still reads, follows
            # that sync to its end (it is searched as it fills).
            def catch_up(late: list[sqlite3.Row]) -> None:
                nonlocal total
                total = max(total, report.embedded + len(report.failed_rows) + len(late))
                embed_rows(late)

            importing_now = importing if current is None else None
            _catch_up(conn, library_id, target.id, catch_up, importing_now, cancel, heartbeat)
            # What a change still made after the passes is left to the next vectorisation.
            store.promote(conn, data_dir, store.get(conn, target.id), allow_gaps=current is None)
        elif not report.failed_rows:
            # the dead rows changed chunks left behind are read by every query: leave them out
            grown = store.get(conn, target.id)
            if store.worth_compacting(conn, grown):
                store.compact(conn, data_dir, grown, cancel.check)
    except (CancelledError, KbError, ValueError) as exc:
        reason = exc.message if isinstance(exc, KbError) else str(exc)
        report.error = reason
        heartbeat(recount=True)  # its last count holds what the import added (not "18/18")
        _stopped(conn, data_dir, store.get(conn, target.id), current is None, report, todo)
        refresh_status(conn, library_id, provider.fingerprint, report.failed_documents, reason)
        if isinstance(exc, CancelledError):
            raise
        return report
    refresh_status(conn, library_id, provider.fingerprint, report.failed_documents, report.error)
    return report


def _stopped(
    conn: sqlite3.Connection,
    data_dir: Path,
    target: store.Version,
    first: bool,
    report: BuildReport,
    todo: list[sqlite3.Row],
) -> None:
    """A build stopped by a cancel or a failure: a version built beside the current one is
    failed (the current one keeps serving); a library's ``first`` version, searched as it
    filled ("what is written is already searchable"), keeps what it wrote. The documents whose
    chunks were not reached are failed with ``report.error``."""
    keep = first and report.embedded > 0
    if report.full and not keep:
        store.fail(conn, data_dir, target, report.error or "")
        # the build failed as a whole, not the documents of the batch in flight: they read as
        # the others do, by what serves (four read "failed" beside 36 "incompatible" when the
        # service went down mid-rebuild; a helper's try)
        report.failed_documents.clear()
        return
    if keep:
        store.promote(conn, data_dir, target, allow_gaps=True)
        # what it had not reached, the import's late chunks included (nothing is queued for
        # them: "pending" would promise a run that is not coming)
        left = store.missing(conn, target.library_id, target.id, with_text=False)
        report.failed_documents |= {r["document_id"] for r in left}
        return
    finished = report.embedded + len(report.failed_rows)  # batches finish in order
    report.failed_documents |= {r["document_id"] for r in todo[finished:]}


def _catch_up(
    conn: sqlite3.Connection,
    library_id: str,
    version_id: str,
    embed: Callable[[list[sqlite3.Row]], None],
    importing: Callable[[], bool] | None,
    cancel: CancelToken,
    heartbeat: Callable[[], None],
) -> None:
    """Embed what changed during a full build, in up to CATCH_UP_PASSES passes — and, while
    ``importing`` says a sync still adds chunks (a first version), until that sync ends.
    Whether it is importing is asked before the chunks are listed: once it has ended, one
    more listing holds everything it wrote."""
    passes = 0
    while True:
        still = importing is not None and importing()
        late = store.missing(conn, library_id, version_id, with_text=False)
        if late:
            embed(late)
            passes += 1
            if passes >= CATCH_UP_PASSES and not still:
                return
        elif still:
            cancel.check()
            time.sleep(IMPORT_POLL_S)
            heartbeat()
        else:
            return


def _waiting(
    conn: sqlite3.Connection,
    library_id: str,
    provider: EmbeddingProvider,
    rebuild: bool,
    current: store.Version | None,
) -> int:
    """The chunks a build would embed, counted without asking the provider anything: every
    retrievable chunk for a new version, else those the current version lacks."""
    incremental = (
        not rebuild
        and current is not None
        and provider.compatible_with(current.fingerprint, current.dims)
    )
    return store.count_missing(conn, library_id, current.id if incremental and current else None)


def _mark(conn: sqlite3.Connection, document_ids: set[str], status: str, error: str | None) -> None:
    if not document_ids:
        return
    with transaction(conn):
        conn.executemany(
            "UPDATE documents SET vector_status = ?, vector_error = ? WHERE id = ?",
            [(status, error, d) for d in document_ids],
        )


#: A document (``documents`` in the outer query) one of whose retrievable chunks has no live
#: vector of its current text in the version bound to ``?``.
_LACKS_VECTOR = (
    "EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = documents.id AND c.enabled = 1"
    " AND c.role != 'parent' AND NOT EXISTS (SELECT 1 FROM vector_rows v WHERE"
    " v.version_id = ? AND v.chunk_seq = c.seq AND v.alive = 1 AND v.checksum = c.checksum))"
)


def _done_where_whole(
    conn: sqlite3.Connection, version_id: str, document_ids: set[str], serving: bool
) -> None:
    """In a version searches read as it is written (a ``serving`` one: a first version while
    it fills, or the current one taking the vectors of new chunks), documents every retrievable
    chunk of which now has its vector: done (their rows read "… Pending" and the summary "0
    vectorised" beside "154/256 chunks vectorised" until the whole library was; 1,200 files
    added to a library read "⟳ Running" until the last). A version built beside the current one
    serves nothing until it is swapped in: its documents wait for that."""
    if not serving:
        return
    with transaction(conn):
        conn.executemany(
            "UPDATE documents SET vector_status = 'done', vector_error = NULL WHERE id = ?"
            f" AND NOT {_LACKS_VECTOR}",
            [(d, version_id) for d in document_ids],
        )


def refresh_status(
    conn: sqlite3.Connection,
    library_id: str,
    fingerprint: str | None,
    failed: set[str] | None = None,
    reason: str | None = None,
) -> None:
    """Recompute every document's vector status from the version searches read: the current
    one, else a first version while it fills (the documents it already holds whole are done; a
    sync that ended mid-fill had set them all back to pending)."""
    current = store.current(conn, library_id)
    measured = current if current is not None else store.serving(conn, library_id)
    with transaction(conn):
        if fingerprint is None:
            conn.execute(
                "UPDATE documents SET vector_status = 'disabled', vector_error = NULL WHERE library_id = ?",
                (library_id,),
            )
            return
        if measured is None or measured.fingerprint != fingerprint:
            state = "incompatible" if current is not None else "pending"
            note = (
                "index built with another model or endpoint; rebuild needed"
                if current is not None
                else None
            )
            conn.execute(
                "UPDATE documents SET vector_status = ?, vector_error = ? WHERE library_id = ?"
                " AND parse_status = 'done'",
                (state, note, library_id),
            )
        else:
            conn.execute(
                f"UPDATE documents SET vector_status = CASE WHEN {_LACKS_VECTOR}"
                " THEN 'pending' ELSE 'done' END, vector_error = NULL"
                " WHERE library_id = ? AND parse_status = 'done'",
                (measured.id, library_id),
            )
        for doc_id in failed or ():
            # A document whose vectors the current version still serves in full is not
            # "failed" because a later attempt (a rebuild beside it) did not finish.
            conn.execute(
                "UPDATE documents SET vector_status = 'failed', vector_error = ? WHERE id = ?"
                " AND vector_status != 'done'",
                ((reason or "embedding failed")[:300], doc_id),
            )


def recover_statuses(conn: sqlite3.Connection) -> int:
    """At start: documents a crash left "running" get the status of what serves now — done
    when the library's current version holds a live vector for each of their retrievable
    chunks, pending otherwise. Returns how many documents were corrected."""
    with transaction(conn):
        cursor = conn.execute(
            "UPDATE documents SET vector_error = NULL, vector_status = CASE WHEN EXISTS ("
            " SELECT 1 FROM libraries l JOIN vector_versions v ON v.id = l.current_vector_version"
            " WHERE l.id = documents.library_id AND v.state = 'ready') AND NOT EXISTS ("
            " SELECT 1 FROM chunks c WHERE c.document_id = documents.id AND c.enabled = 1"
            " AND c.role != 'parent' AND NOT EXISTS (SELECT 1 FROM vector_rows r"
            " JOIN libraries l ON l.current_vector_version = r.version_id"
            " WHERE l.id = documents.library_id AND r.chunk_seq = c.seq AND r.alive = 1"
            " AND r.checksum = c.checksum)) THEN 'done' ELSE 'pending' END"
            " WHERE vector_status = 'running'"
        )
    return cursor.rowcount
