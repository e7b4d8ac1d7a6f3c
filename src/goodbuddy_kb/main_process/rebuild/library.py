"""Rebuilding a library: sources in order, documents in path order, one document at a time, so
a cancel or a shutdown leaves every document either fully old or fully new and already replaced
documents stay available. The "settings updated, waiting for rebuild" flag is cleared only when
the whole walk completes with the settings it started with and no document is left on its old
generation."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from goodbuddy_kb.contracts.errors import CancelledError, NotFoundError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking.carryover import Tally, plus
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.rebuild.document import DocumentOutcome, rebuild_document
from goodbuddy_kb.main_process.storage import libraries
from goodbuddy_kb.main_process.storage.db import transaction

Progress = Callable[[int, int, str | None, int], None]  # done, total, current path, failed
#: Consecutive documents failing on the embedding service after which a library rebuild stops:
#: the service is down, and every further document would only wait for its retries.
MAX_EMBEDDING_FAILURES = 2


@dataclass
class LibraryReport:
    total: int = 0
    succeeded: int = 0
    failed: int = 0
    not_started: int = 0
    #: Why the walk ended early: the cancel reason, or the embedding service being down.
    cancelled: str | None = None
    stopped: str | None = None
    #: None when the library was not waiting for a rebuild.
    settings_applied: bool | None = None
    first_error: str | None = None
    #: Documents left as they were to keep manual chunk work the new chunking could not carry.
    skipped: list[str] = field(default_factory=list)
    #: Manual work carried over; manual work dropped (discard) or kept by skipping (skip).
    carried: Tally = field(default_factory=Tally)
    lost: Tally = field(default_factory=Tally)

    #: Documents rebuilt with their manual work dropped (discard).
    lost_paths: list[str] = field(default_factory=list)

    def add_work(self, outcome: DocumentOutcome) -> None:
        self.carried = plus(self.carried, outcome.carried)
        self.lost = plus(self.lost, outcome.lost)
        if outcome.skipped:
            self.skipped.append(outcome.path)
        elif outcome.lost.total:
            self.lost_paths.append(outcome.path)


def documents_in_order(conn: sqlite3.Connection, library_id: str) -> list[tuple[str, str]]:
    """(id, path) of the library's documents: sources in the order they were added, then paths."""
    rows = conn.execute(
        "SELECT d.id, d.relative_path FROM documents d JOIN sources s ON s.id = d.source_id"
        " WHERE d.library_id = ? ORDER BY s.created_at, s.id, d.relative_path, d.id",
        (library_id,),
    )
    return [(r[0], r[1]) for r in rows]


def _settings_key(conn: sqlite3.Connection, library_id: str) -> tuple[object, ...] | None:
    row = conn.execute(
        "SELECT chunking_settings, contextual_indexing, settings_pending_rebuild FROM libraries"
        " WHERE id = ?",
        (library_id,),
    ).fetchone()
    return tuple(row) if row else None


def rebuild_library(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_id: str,
    provider: EmbeddingProvider | None,
    cancel: CancelToken,
    progress: Progress | None = None,
    discard: bool = False,
) -> LibraryReport:
    """Rebuild every document; one whose manual chunk work the new chunking cannot carry over
    is skipped (left as it was) unless ``discard``."""
    started_with = _settings_key(conn, library_id)
    todo = documents_in_order(conn, library_id)
    report = LibraryReport(total=len(todo))
    embedding_failures = 0
    for done, (document_id, path) in enumerate(todo):
        if progress is not None:
            progress(done, len(todo), path, report.failed)
        if cancel.cancelled:
            report.cancelled = cancel.reason
            report.not_started = len(todo) - done
            break
        try:
            outcome = rebuild_document(
                conn, data_dir, library_id, document_id, provider, cancel, discard
            )
        except CancelledError as exc:
            report.cancelled = exc.message
            report.not_started = len(todo) - done
            break
        except NotFoundError:
            report.total -= 1  # removed meanwhile (its source was removed): nothing to rebuild
            continue
        report.add_work(outcome)
        if outcome.skipped:
            embedding_failures = 0
            continue
        if outcome.ok:
            report.succeeded += 1
            embedding_failures = 0
            continue
        report.failed += 1
        report.first_error = report.first_error or f"{path}: {outcome.error}"
        embedding_failures = embedding_failures + 1 if outcome.embedding_failed else 0
        if embedding_failures >= MAX_EMBEDDING_FAILURES:
            report.not_started = len(todo) - done - 1
            report.stopped = (
                f"the embedding service failed for {embedding_failures} documents in a row"
                f" ({outcome.error}); {report.not_started} documents were not rebuilt and keep"
                " their previous version"
            )
            break
    if progress is not None and report.cancelled is None:
        # stopped: the documents it went through, with the one that stopped it (the bar read
        # "2/30" beside "1 written · 2 failed · 27 not started"; a helper's try)
        progress(len(todo) - report.not_started, len(todo), None, report.failed)
    if started_with is not None and started_with[2]:
        complete = report.cancelled is None and report.stopped is None and not report.skipped
        report.settings_applied = complete and _clear_pending(conn, library_id, started_with)
    return report


def _clear_pending(
    conn: sqlite3.Connection, library_id: str, started_with: tuple[object, ...]
) -> bool:
    """Clear the flag if the settings are still those the walk used and every document now
    serves a generation made with them (a failed one keeping its old chunks does not)."""
    with transaction(conn):
        if _settings_key(conn, library_id) != started_with:
            return False
        (stale,) = conn.execute(
            "SELECT count(*) FROM documents WHERE library_id = ? AND retryable_error IS NOT NULL",
            (library_id,),
        ).fetchone()
        if stale:
            return False
        conn.execute(
            "UPDATE libraries SET settings_pending_rebuild = 0 WHERE id = ?", (library_id,)
        )
        libraries.mark_built(conn, library_id)
    return True
