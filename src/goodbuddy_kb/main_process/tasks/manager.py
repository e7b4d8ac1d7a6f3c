"""What each background task does: a source's sync, OCR, a library's or a document's rebuild,
vectorisation, and knowledge-graph extraction, and the work each leaves for the next (vectors
after a sync, the graph after indexing). The lanes, queueing and progress are ``runner.py``'s."""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from goodbuddy_kb.contracts.graph import GraphRunSummary
from goodbuddy_kb.contracts.rebuild import ManualWorkChoice
from goodbuddy_kb.contracts.tasks import (
    STEP_CONNECTING,
    STEP_FILLING,
    STEP_GROWING,
    STEP_LOADING_MODEL,
    STEP_RESUMED,
    TaskInfo,
    TaskSummary,
)
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.diagnostic_log import DiagnosticsLog
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.graph import store as graph_store
from goodbuddy_kb.main_process.graph.extract import extract_library
from goodbuddy_kb.main_process.graph.model import NO_CHAT_MODEL, ChatFactory, extract_with_model
from goodbuddy_kb.main_process.maintenance.vectors import vectorise_document
from goodbuddy_kb.main_process.ocr.run import run_ocr
from goodbuddy_kb.main_process.rebuild import rebuild_document, rebuild_library
from goodbuddy_kb.main_process.rebuild.manual import outcome as manual_outcome
from goodbuddy_kb.main_process.storage import documents, reading, reserve, sources
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.storage.db import ConnectionPool, transaction
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.tasks.runner import Notify, Outcome, Progress, TaskRunner
from goodbuddy_kb.main_process.vectors import store as vector_store
from goodbuddy_kb.main_process.vectors.build import recover_statuses, refresh_status, vectorise

ProviderOf = Callable[[], EmbeddingProvider | None]
#: Seconds between two checks, during a library's first sync, for chunks to start embedding.
EARLY_VECTORS_S = 2.0


def model_step(provider: EmbeddingProvider) -> str:
    """The step before the first batch: a model on this computer loads; a service elsewhere is
    asked for its dimensions ("loading the embedding model" read as if it ran here)."""
    return STEP_LOADING_MODEL if provider.kind in ("local", "deterministic") else STEP_CONNECTING


class TaskManager(TaskRunner):
    def __init__(
        self,
        db: ConnectionPool,
        data_dir: Path,
        notify: Notify,
        provider: ProviderOf,
        diagnostics: DiagnosticsLog,
    ) -> None:
        super().__init__(db, notify, diagnostics)
        self._data_dir = data_dir
        self._provider = provider
        #: The configured chat model's client (the model graph strategy), set by the services.
        self.chat: ChatFactory | None = None
        reserve.at_start(data_dir)  # room to record a failure should the disk fill up
        task_store.mark_interrupted(db.get())
        # A crash mid-build leaves a "building" version and documents shown "running".
        vector_store.recover_interrupted(db.get(), data_dir)
        recover_statuses(db.get())
        graph_store.end_running(db.get())
        reading.recover_reading(db.get())

    def resume_interrupted_vectors(self) -> None:
        """At start: a vectorisation the app's closing (or a crash) cut off resumes by itself,
        from what it had written (a library's first vectors are kept: ``vectors.build``); its
        documents read "failed: the app is closing" until then. Never a new version for another
        model than the index's unless the cut-off work was that model's rebuild, which a person
        asked for ("Rebuild vectors" after a model switch): it starts again (see
        ``_vectors_after_rebuild``)."""
        provider = self._provider()
        if provider is None:
            return
        conn = self._db.get()
        for library_id in task_store.cut_off(conn, "vectorize"):
            asked = vector_store.cut_off_rebuild(conn, library_id)
            again = asked is not None and provider.compatible_with(asked.fingerprint, asked.dims)
            self._vectors_after_rebuild(library_id, provider, full_allowed=again, resumed=True)

    def resume_interrupted_ocr(self) -> list[TaskInfo]:
        """At start: the OCR a crash cut off resumes by itself (no sync needed)."""
        queued = (self.ocr(library_id) for library_id in documents.ocr_interrupted(self._db.get()))
        return [task for task in queued if task is not None]

    # -- queueing ------------------------------------------------------------------------------
    def sync(self, library_id: str, source_id: str) -> TaskInfo:
        """Queue a sync of one source (a sync already waiting for it is reused); vectorisation
        of the library follows when an embedding provider is configured."""

        def work(token: CancelToken, progress: Progress) -> Outcome:
            conn = self._db.get()
            report = sync_source(
                conn,
                sources.get(conn, library_id, source_id),
                token,
                self._first_vectors_early(library_id, progress),
                vectors_expected=self._provider() is not None,
            )
            if report.unavailable:
                return Outcome(0, 0, report.unavailable, failed_state=True)
            if report.ocr_pending:
                self.ocr(library_id)
            provider = self._provider()
            if provider is not None:
                # New documents wait for vectors (never "off" while their vectors are queued).
                current = vector_store.current(conn, library_id)
                refresh_status(
                    conn,
                    library_id,
                    provider.fingerprint_serving(
                        current.fingerprint if current else None, current.dims if current else None
                    ),
                )
                if not self._first_fill_queued(library_id):  # it takes all this sync added
                    self._vectors_after_rebuild(library_id, provider, full_allowed=False)
            if report.processed:  # no new text, no graph work
                self.graph_after_indexing(library_id)
            summary = TaskSummary(
                succeeded=report.processed,
                failed=report.failed,
                unchanged=report.unchanged,
                retried=report.retried,
                ocr_pending=report.ocr_pending,
                removed=report.removed,
                overflow=report.overflow,
                # A changed file's own new text replaces the work on its old text.
                manual_work=manual_outcome(
                    "discard",
                    report.manual_carried,
                    report.manual_lost,
                    [],
                    report.manual_lost_paths,
                ),
            )
            return Outcome(report.total, report.failed, summary=summary)

        return self._queue("sync", library_id, source_id, source_id, work)

    def _first_vectors_early(self, library_id: str, progress: Progress) -> Progress:
        """``progress`` that also starts a library's first vectorisation while the sync still
        reads: as soon as documents are chunked (looked at again every EARLY_VECTORS_S while
        none is queued or running), so the first version fills — and is searched — beside the
        import instead of after it. A library with a current version waits for the sync's end."""
        checked = 0.0

        def report(done: int, total: int, current: str | None, failed: int) -> None:
            nonlocal checked
            progress(done, total, current, failed)
            now = time.monotonic()
            if done in (0, total) or now - checked < EARLY_VECTORS_S:
                return
            checked = now
            provider = self._provider()
            conn = self._db.get()
            if (
                provider is not None
                and vector_store.current(conn, library_id) is None
                and not task_store.active(conn, library_id, "vectorize")
            ):
                self._vectors_after_rebuild(library_id, provider, full_allowed=True)

        return report

    def _first_fill_queued(self, library_id: str) -> bool:
        """A library without a current vector version has a vectorisation queued or running:
        the first version it builds follows the sync to its end (``vectorise(importing=…)``),
        so a sync adds no second one."""
        conn = self._db.get()
        return vector_store.current(conn, library_id) is None and task_store.active(
            conn, library_id, "vectorize"
        )

    def ocr(self, library_id: str) -> TaskInfo | None:
        """Queue the OCR of the library's documents waiting for it (one already waiting is
        reused); vectors of what it recognised follow. None when no document waits: a task
        with nothing to do is not listed."""
        if not documents.ocr_waiting(self._db.get(), library_id):
            return None

        def work(token: CancelToken, progress: Progress) -> Outcome:
            report = run_ocr(self._db.get(), library_id, token, progress)
            if report.succeeded:
                self._vectors_after_rebuild(library_id, self._provider(), full_allowed=False)
                self.graph_after_indexing(library_id)  # recognised text gets its graph too
            summary = TaskSummary(succeeded=report.succeeded, failed=report.failed)
            return Outcome(report.documents, report.failed, report.error(), summary=summary)

        return self._queue("ocr", library_id, None, f"{library_id}:ocr", work)

    def rebuild_library(self, library_id: str, manual: ManualWorkChoice = "skip") -> TaskInfo:
        """Queue a rebuild of every document of the library (one already waiting with the same
        choice about manual chunk work is reused)."""

        def work(token: CancelToken, progress: Progress) -> Outcome:
            provider = self._provider()
            report = rebuild_library(
                self._db.get(),
                self._data_dir,
                library_id,
                provider,
                token,
                progress,
                discard=manual == "discard",
            )
            self._vectors_after_rebuild(library_id, provider, full_allowed=True)
            self.graph_after_indexing(library_id)
            summary = TaskSummary(
                succeeded=report.succeeded,
                failed=report.failed,
                not_started=report.not_started,
                settings_applied=report.settings_applied,
                manual_work=manual_outcome(
                    manual, report.carried, report.lost, report.skipped, report.lost_paths
                ),
            )
            done = report.succeeded + report.failed + len(report.skipped)
            if report.cancelled is not None:
                return Outcome(done, report.failed, summary=summary, cancelled=report.cancelled)
            if report.stopped is not None:
                return Outcome(done, report.failed, report.stopped, True, summary)
            error = None
            if report.failed:
                error = (
                    "1 document failed"
                    if report.failed == 1
                    else f"{report.failed} documents failed"
                ) + f"; a document with a previous version keeps it (first: {report.first_error})"
            return Outcome(done, report.failed, error, summary=summary)

        return self._queue("rebuild", library_id, None, f"{library_id}:library:{manual}", work)

    def rebuild_document(
        self, library_id: str, document_id: str, manual: ManualWorkChoice = "skip"
    ) -> TaskInfo:
        """Queue a rebuild of one document (one already waiting for it with the same choice
        about manual chunk work is reused)."""

        def work(token: CancelToken, progress: Progress) -> Outcome:
            conn = self._db.get()
            path = conn.execute(
                "SELECT relative_path FROM documents WHERE id = ?", (document_id,)
            ).fetchone()
            progress(0, 1, path[0] if path else None, 0)
            provider = self._provider()
            outcome = rebuild_document(
                conn, self._data_dir, library_id, document_id, provider, token,
                manual == "discard",
            )  # fmt: skip
            self._vectors_after_rebuild(library_id, provider, full_allowed=False)
            if outcome.ok:  # its new text gets its graph as a sync's would (stale entities go)
                self.graph_after_indexing(library_id)
            work_done = manual_outcome(
                manual,
                outcome.carried,
                outcome.lost,
                [outcome.path] if outcome.skipped else [],
                [outcome.path] if outcome.lost.total and not outcome.skipped else [],
            )
            if outcome.ok or outcome.skipped:
                return Outcome(
                    1, 0, summary=TaskSummary(succeeded=int(outcome.ok), manual_work=work_done)
                )
            kept = " (the previous version is still searchable)" if outcome.kept_previous else ""
            return Outcome(1, 1, f"{outcome.error}{kept}", True, TaskSummary(failed=1))

        return self._queue(
            "rebuild",
            library_id,
            None,
            f"{library_id}:{document_id}:{manual}",
            work,
            document_id=document_id,
        )

    def _vectors_after_rebuild(
        self,
        library_id: str,
        provider: EmbeddingProvider | None,
        full_allowed: bool,
        resumed: bool = False,
    ) -> None:
        """Queue the vector work a sync or rebuild leaves: a first build, vectors a document
        still lacks, or (``full_allowed``: a library rebuild a person asked for) a new version
        after a model or endpoint switch — built beside the current one and swapped in when
        complete. A sync or a start never makes one: the index reads incompatible until a
        person rebuilds it (PRD §12; a helper's restart sent a whole library's text to the
        newly set-up remote service, which the model settings say the app never does by
        itself). With no chunk to embed nothing is queued (no "Vectorise 0/0" task)."""
        if provider is None:
            return
        conn = self._db.get()
        current = vector_store.current(conn, library_id)
        if current is None:
            needed = vector_store.count_missing(conn, library_id, None) > 0
        elif provider.variant_for(current.fingerprint, current.dims) is None:
            needed = full_allowed and vector_store.count_missing(conn, library_id, None) > 0
        else:
            needed = vector_store.count_missing(conn, library_id, current.id) > 0
        if needed:
            self.vectorize(library_id, resumed=resumed)

    def vectorize_document(self, library_id: str, document_id: str) -> TaskInfo:
        """Queue the re-embedding of one document's chunks that lack a vector of their current
        text (after a chunk edit or re-enable); one already waiting for it is reused."""

        def work(token: CancelToken, progress: Progress) -> Outcome:
            provider = self._provider()
            if provider is None:
                return Outcome(0, 0, "no embedding model is configured", failed_state=True)
            conn = self._db.get()
            path = conn.execute(
                "SELECT relative_path FROM documents WHERE id = ?", (document_id,)
            ).fetchone()
            name = path[0] if path else None
            # Counted in chunks, like a library's vectorisation: "0/1" for a document whose
            # chunks a later change left with nothing to embed read as a failure to do one.
            outcome = vectorise_document(
                conn,
                self._data_dir,
                library_id,
                document_id,
                provider,
                token,
                counted=lambda n: progress(0, n, name, 0),
            )
            if outcome.error is not None:
                return Outcome(0, 1, outcome.error, failed_state=True)  # the document failed
            return Outcome(outcome.embedded, 0)

        return self._queue(
            "vectorize",
            library_id,
            None,
            f"{library_id}:document:{document_id}",
            work,
            document_id=document_id,
        )

    def vectorize(self, library_id: str, rebuild: bool = False, resumed: bool = False) -> TaskInfo:
        """``resumed``: work the app's stopping cut off, started again by itself: its progress
        says so (a helper saw a rebuild begin again at 0/40 with nothing saying why)."""

        def work(token: CancelToken, progress: Progress) -> Outcome:
            provider = self._provider()
            if provider is None:
                return Outcome(0, 0, "no embedding model is configured", failed_state=True)
            # New chunks of an index the bundled model's other encoder built are embedded by that
            # encoder (the index is offered a rebuild, never rebuilt behind the user's back).
            current = None if rebuild else vector_store.current(self._db.get(), library_id)
            if current is not None:
                provider = provider.variant_for(current.fingerprint, current.dims) or provider
            # The task counts its chunks first, then the bundled model loads, visibly, before
            # the first batch: a load that fails still shows how many chunks were waiting.
            # A library's first version is searched while it fills, and its progress says so.
            first = vector_store.current(self._db.get(), library_id) is None

            def importing() -> bool:
                return task_store.active(self._db.get(), library_id, "sync")

            def step() -> str | None:
                if first:
                    return STEP_GROWING if importing() else STEP_FILLING
                return STEP_RESUMED if resumed else None

            report = vectorise(
                self._db.get(),
                self._data_dir,
                library_id,
                provider,
                token,
                lambda done, total, failed: progress(done, total, step(), failed),
                rebuild=rebuild,
                loading=lambda total: progress(0, total, model_step(provider), 0),
                importing=importing,
            )
            failed_state = report.full and report.error is not None
            return Outcome(
                report.embedded, len(report.failed_documents), report.error, failed_state
            )

        key = f"{library_id}:{'rebuild' if rebuild else 'update'}"
        if rebuild:
            current = vector_store.current(self._db.get(), library_id)
            provider = self._provider()
            if (
                current is not None
                and provider is not None
                and provider.variant_for(current.fingerprint, current.dims) is None
            ):
                # an index of another model: its rebuild is the update that builds the new
                # version (one resumed at start or after a sync may be at work already)
                key = f"{library_id}:update"
        return self._queue("vectorize", library_id, None, key, work, once=rebuild)

    def graph_after_indexing(self, library_id: str) -> None:
        """New or changed text gets its graph evidence when the library's graph is local; with
        the model strategy it waits, "on demand", for a run the user starts (each chunk costs a
        model call, shown beforehand)."""
        conn = self._db.get()
        strategy = graph_store.settings(conn, library_id).strategy
        readable = conn.execute(
            "SELECT 1 FROM documents WHERE library_id = ? AND parse_status = 'done' LIMIT 1",
            (library_id,),
        ).fetchone()
        if strategy == "local" and readable is not None:  # no text, no graph task
            self.extract_graph(library_id)
        elif strategy == "model":
            with transaction(conn):
                conn.execute(
                    "UPDATE documents SET graph_status = 'on_demand' WHERE library_id = ?"
                    " AND parse_status = 'done' AND graph_status = 'disabled'",
                    (library_id,),
                )

    def extract_graph(self, library_id: str) -> TaskInfo:
        """Queue a knowledge-graph extraction of the library with its current strategy."""

        def work(token: CancelToken, progress: Progress) -> Outcome:
            conn = self._db.get()
            strategy = graph_store.settings(conn, library_id).strategy
            if strategy == "off":
                return Outcome(
                    0, 0, "the knowledge graph is off for this library", failed_state=True
                )
            if strategy == "model":
                try:
                    return self._extract_with_model(conn, library_id, token, progress)
                finally:
                    graph_store.end_running(conn, library_id)
            graph_store.mark_running(conn, library_id, None)
            try:
                report = extract_library(
                    conn, library_id, token, lambda done, total: progress(done, total, None, 0)
                )
            finally:
                graph_store.end_running(conn, library_id)
            run = GraphRunSummary(
                run_id=uuid.uuid4().hex,
                strategy="local",
                chunks=report.chunks,
                entities=report.mentions,
                relations=report.relation_mentions,
                total_entities=report.entities,
                total_relations=report.relations,
            )
            return Outcome(report.documents, 0, summary=TaskSummary(graph=run))

        model = graph_store.settings(self._db.get(), library_id).strategy == "model"
        return self._queue(
            "graph", library_id, None, library_id, work, lane="graph" if model else None
        )

    def _extract_with_model(
        self,
        conn: sqlite3.Connection,
        library_id: str,
        token: CancelToken,
        progress: Progress,
    ) -> Outcome:
        client = self.chat() if self.chat is not None else None
        if client is None:
            return Outcome(0, 0, NO_CHAT_MODEL, failed_state=True)
        run = extract_with_model(
            conn, library_id, client, token, lambda done, total: progress(done, total, None, 0)
        )
        (failed,) = conn.execute(
            "SELECT count(*) FROM documents WHERE library_id = ? AND graph_status = 'failed'",
            (library_id,),
        ).fetchone()
        return Outcome(
            run.counts.chunks,
            int(failed),
            run.error,
            failed_state=run.stopped is not None,
            summary=TaskSummary(graph=run.counts.summary()),
            cancelled=run.cancelled,
        )
