"""The machinery under every background task: four lanes (full text, vectors, graph, OCR),
one waiting task per kind and key, cancellation, shutdown, throttled progress notifications,
and the task's history row in SQLite with its outcome recorded in the diagnostics. What each
task does lives in ``manager.py``."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from goodbuddy_kb.contracts.errors import CancelledError, KbError, NotFoundError
from goodbuddy_kb.contracts.methods import NOTIFY_CHANGED, NOTIFY_TASK, ChangedParams
from goodbuddy_kb.contracts.tasks import (
    FINISHED_STATES,
    STEPS,
    TaskInfo,
    TaskKind,
    TaskState,
    TaskSummary,
)
from goodbuddy_kb.main_process import diagnostics
from goodbuddy_kb.main_process.cancel import CANCELLED_BY_USER, CancelToken
from goodbuddy_kb.main_process.diagnostic_log import DiagnosticsLog
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.startup import task_failure
from goodbuddy_kb.main_process.storage import reserve
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.throughput import Throughput

log = logging.getLogger(__name__)
Notify = Callable[[str, dict[str, Any]], None]
#: Seconds between two progress notifications of one task (the last one is always sent).
PROGRESS_INTERVAL_S = 0.1
#: ``progress(done, total, current, failed)``: what a task's work reports as it goes.
Progress = Callable[[int, int, str | None, int], None]


@dataclass
class Outcome:
    total: int
    failed: int
    error: str | None = None
    failed_state: bool = False
    summary: TaskSummary | None = None
    #: The work stopped at a cancel between documents (the reason); the task ends "cancelled".
    cancelled: str | None = None


Work = Callable[[CancelToken, Progress], Outcome]


class TaskRunner:
    """Queues work on its lane and runs it with progress, cancellation and history."""

    def __init__(self, db: ConnectionPool, notify: Notify, diagnostics: DiagnosticsLog) -> None:
        self._db = db
        self._notify = notify
        self._diagnostics = diagnostics
        # Two lanes: syncs (full-text indexing) never wait behind a long vectorisation, and
        # vectorisations run one at a time beside them. SQLite writes stay serialised by the
        # process-wide write lock, held per document or per batch only.
        self._lanes = {
            "fulltext": ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-task"),
            "vectorize": ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-vectors"),
            # model graph extraction waits on a remote model for minutes: never in front of a
            # sync (it re-checks each chunk inside its write transaction)
            "graph": ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-graph"),
            # OCR takes seconds a page: its own lane, so no sync waits behind a scan.
            "ocr": ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-ocr"),
        }
        self._tokens: dict[str, CancelToken] = {}
        self._queued: dict[tuple[str, str], str] = {}  # (kind, key) → waiting task id
        #: The tasks at work by (kind, key): a request that must not run twice gets the one running.
        self._running: dict[tuple[str, str], str] = {}
        #: Final rows a full disk kept from being written, shown until they are (:meth:`listed`).
        self._unrecorded: dict[str, TaskInfo] = {}
        self._lock = threading.Lock()
        self._futures: set[Future[None]] = set()

    # -- queueing ------------------------------------------------------------------------------
    def _queue(
        self,
        kind: TaskKind,
        library_id: str,
        source_id: str | None,
        key: str,
        work: Work,
        document_id: str | None = None,
        lane: str | None = None,
        once: bool = False,
    ) -> TaskInfo:
        """``once``: while a task of this kind and key is at work, a new request gets it (a
        rebuild pressed again while it runs), not another one queued after it."""
        with self._lock:
            waiting = self._queued.get((kind, key)) or (
                self._running.get((kind, key)) if once else None
            )
            if waiting is not None:
                return task_store.get(self._db.get(), waiting)
            info = task_store.create(self._db.get(), library_id, kind, source_id, document_id)
            self._tokens[info.id] = CancelToken()
            self._queued[(kind, key)] = info.id
        self._publish(info)
        executor = self._lanes[lane or (kind if kind in ("vectorize", "ocr") else "fulltext")]
        try:
            one = document_id is not None
            future = executor.submit(self._run, info.id, library_id, (kind, key), work, one)
        except RuntimeError:  # the app is closing: a task a finishing one queues never starts
            with self._lock:
                self._queued.pop((kind, key), None)
                self._tokens.pop(info.id, None)
            info = task_store.update(
                self._db.get(), info.id, "cancelled", 0, 0, 0, None, task_store.APP_CLOSING
            )
            self._publish(info)
            return info
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        return info

    # -- control -------------------------------------------------------------------------------
    def cancel(self, task_id: str) -> TaskInfo:
        with self._lock:
            unrecorded = self._unrecorded.get(task_id)
        if unrecorded is not None:
            return unrecorded
        info = task_store.get(self._db.get(), task_id)
        token = self._tokens.get(task_id)
        if token is not None and info.state not in FINISHED_STATES:
            token.cancel()
            if info.state == "queued":
                info = task_store.update(
                    self._db.get(), task_id, "cancelled", 0, 0, 0, None, CANCELLED_BY_USER
                )
                self._publish(info)
        return info

    def cancel_library(self, library_id: str) -> None:
        """The library is being deleted: its tasks stop, each ending "cancelled: the library was
        deleted" (a vectorisation ran on into the rows the deletion took, crashed, and left the
        window showing its last progress for good, and `source add` waiting; a helper's try)."""
        conn = self._db.get()
        reason = task_store.LIBRARY_DELETED
        for info in task_store.at_work(conn, library_id):
            token = self._tokens.get(info.id)
            if token is None:
                continue
            token.cancel(reason)
            if info.state == "queued":  # never runs: it ends now
                with contextlib.suppress(KbError):
                    ended = task_store.update(conn, info.id, "cancelled", 0, 0, 0, None, reason)
                    self._publish(ended)

    def shutdown(self, wait_s: float = 5.0) -> None:
        for token in list(self._tokens.values()):
            token.cancel(task_store.APP_CLOSING)
        for lane in self._lanes.values():
            lane.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + wait_s
        for future in list(self._futures):
            remaining = deadline - time.monotonic()
            if remaining > 0:
                with contextlib.suppress(Exception):
                    future.result(timeout=remaining)

    def wait_idle(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while self._futures and time.monotonic() < deadline:
            time.sleep(0.02)

    # -- running -------------------------------------------------------------------------------
    def _publish(self, info: TaskInfo) -> None:
        self._notify(NOTIFY_TASK.name, info.to_wire())

    def _run(
        self,
        task_id: str,
        library_id: str,
        queue_key: tuple[str, str],
        work: Work,
        one_document: bool = False,
    ) -> None:
        conn = self._db.get()
        with self._lock:
            self._queued.pop(queue_key, None)  # from now on a new request queues a new task
            self._running[queue_key] = task_id
        token = self._tokens[task_id]
        if token.cancelled:
            with self._lock:
                self._tokens.pop(task_id, None)
                self._running.pop(queue_key, None)
            return
        began = time.monotonic()
        tracker = _Tracker(conn, task_id, self._publish, one_document)
        try:
            final = self._execute(tracker, library_id, token, work)
        finally:
            with self._lock:
                self._tokens.pop(task_id, None)
                self._running.pop(queue_key, None)
            reserve.keep(self._db.path.parent)  # given back to a full disk: laid down again
        self._publish(final)
        diagnostics.record_task(
            self._diagnostics,
            final.kind,
            final.state,
            library_id,
            (time.monotonic() - began) * 1000,
            final.total,
            final.failed_documents,
            final.error,
        )
        rebuilt = queue_key[0] == "rebuild"  # may have cleared "waiting for rebuild"
        changed = ChangedParams(
            method=NOTIFY_TASK.name,
            library_ids=[library_id],
            libraries=rebuilt,
            settings=rebuilt,
            sources=True,
            documents=True,
        )
        self._notify(NOTIFY_CHANGED.name, changed.to_wire())

    def _execute(
        self, tracker: _Tracker, library_id: str, token: CancelToken, work: Work
    ) -> TaskInfo:
        """Run the work; its outcome, a cancel or any failure is the task's final row. A final
        row the database cannot take (a full disk, even after the reserve was given back) is
        still published and listed, failed with the reason, until it can be written."""
        try:
            return self._outcome(tracker, library_id, token, work)
        except NotFoundError:  # its row went with its library, deleted while it ran
            return tracker.gone(token.reason)
        except (sqlite3.Error, OSError) as exc:
            log.warning("task %s: its end was not recorded: %s", tracker.task_id, exc)
            final = tracker.unrecorded(task_failure(exc))
            with self._lock:
                self._unrecorded[final.id] = final
            return final

    def listed(self, tasks: list[TaskInfo]) -> list[TaskInfo]:
        """``tasks`` as read from the database, with the final rows not yet written in place of
        theirs; each is written now if the database takes it."""
        with self._lock:
            finals = dict(self._unrecorded)
        for info in finals.values():
            try:
                task_store.update(
                    self._db.get(),
                    info.id,
                    info.state,
                    info.done,
                    info.total,
                    info.failed_documents,
                    info.current,
                    info.error,
                    info.summary,
                    rate=info.rate,
                )
            except (sqlite3.Error, OSError):
                continue
            with self._lock:
                self._unrecorded.pop(info.id, None)
        return [finals.get(x.id, x) for x in tasks]

    def _outcome(
        self, tracker: _Tracker, library_id: str, token: CancelToken, work: Work
    ) -> TaskInfo:
        try:
            tracker.show(task_store.update(tracker.conn, tracker.task_id, "running", 0, 0, 0, None))
            started = ChangedParams(
                method=NOTIFY_TASK.name, library_ids=[library_id], documents=True
            )
            self._notify(NOTIFY_CHANGED.name, started.to_wire())
            return tracker.settle(work(token, tracker.progress))
        except CancelledError as exc:
            return tracker.finish("cancelled", exc.message)
        except KbError as exc:
            return tracker.finish("failed", exc.message)
        except (sqlite3.Error, OSError) as exc:
            log.warning("task %s failed: %s", tracker.task_id, exc.__class__.__name__)
            return tracker.finish("failed", task_failure(exc))
        except Exception as exc:
            if token.cancelled:  # (what it worked on went from under it: its library deleted)
                return tracker.finish("cancelled", token.reason)
            log.exception("task %s crashed", tracker.task_id)
            return tracker.finish("failed", f"internal error ({exc.__class__.__name__})")


class _Tracker:
    """One running task's counts and pace: throttled progress rows and its final row."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        task_id: str,
        publish: Callable[[TaskInfo], None],
        one_document: bool = False,
    ) -> None:
        #: A task of one document keeps its name in its final row (a finished "Vectorise
        #: 1/1" read the same for every document); a task of many keeps no "current".
        self._one_document = one_document
        self.conn = conn
        self.task_id = task_id
        self._publish = publish
        self._last = 0.0
        self._state: dict[str, Any] = {"done": 0, "total": 0, "failed": 0}
        self._pace = Throughput()
        #: The last row it published (its end is built from it when the row is gone).
        self.last: TaskInfo | None = None

    def show(self, info: TaskInfo) -> None:
        self.last = info
        self._publish(info)

    def progress(self, done: int, total: int, current: str | None, failed: int) -> None:
        changed_phase = current != self._state.get("current")
        self._state.update(done=done, total=total, failed=failed, current=current)
        self._pace.add(done)
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL_S or done == total or changed_phase:
            self._last = now
            self.show(
                task_store.update(
                    self.conn,
                    self.task_id,
                    "running",
                    done,
                    total,
                    failed,
                    current,
                    rate=self._pace.rate(),
                    eta_s=self._pace.eta_s(done, total),
                )
            )

    def settle(self, outcome: Outcome) -> TaskInfo:
        """The final row of work that returned: completed, failed or cancelled between items."""
        state = self._state
        state.update(
            done=outcome.total if not outcome.failed_state else state["done"],
            failed=outcome.failed,
        )
        state["total"] = max(state["total"], state["done"])
        if outcome.cancelled is not None:
            return self.finish("cancelled", outcome.cancelled, outcome.summary)
        return self.finish(
            "failed" if outcome.failed_state else "completed", outcome.error, outcome.summary
        )

    def _named(self) -> bool:
        current = self._state.get("current")
        return self._one_document and current is not None and current not in STEPS

    def unrecorded(self, error: str) -> TaskInfo:
        """The task failed with ``error``, as its row would read had it been written."""
        state = self._state
        return _ended(
            task_store.get(self.conn, self.task_id),
            "failed",
            error,
            done=state["done"],
            total=state["total"],
            failed_documents=state["failed"],
            current=state.get("current") if self._named() else None,
            rate=self._pace.average(),
        )

    def gone(self, reason: str) -> TaskInfo:
        """The task's end when its row went with its library: cancelled for ``reason``, as its
        row would read (published, never written: there is nothing left to write it to)."""
        if self.last is None:
            raise NotFoundError("task not found", {"taskId": self.task_id})
        return _ended(self.last, "cancelled", reason, current=None)

    def finish(
        self, kind: TaskState, error: str | None, summary: TaskSummary | None = None
    ) -> TaskInfo:
        return task_store.update(
            self.conn,
            self.task_id,
            kind,
            self._state["done"],
            self._state["total"],
            self._state["failed"],
            self._state.get("current") if self._named() else None,
            error,
            summary,
            rate=self._pace.average(),
        )


def _ended(row: TaskInfo, state: TaskState, error: str, **more: Any) -> TaskInfo:
    """``row`` as the final row of a task that ended ``state`` for ``error``, built rather than
    written (a full disk took the write, or the row went with its library); validated, so the
    reason's code is filled in."""
    ended = {"state": state, "error": error, "finished_at": now_iso(), "eta_seconds": None}
    return TaskInfo.model_validate(
        row.model_dump(exclude={"error_code", "error_params"}) | ended | more
    )
