"""Background tasks: a queue of sync jobs on one worker thread, with progress notifications,
cancellation, and history in SQLite."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from goodbuddy_kb.contracts.errors import CancelledError, KbError
from goodbuddy_kb.contracts.methods import NOTIFY_CHANGED, NOTIFY_TASK, ChangedParams
from goodbuddy_kb.contracts.tasks import FINISHED_STATES, TaskInfo
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.storage import sources
from goodbuddy_kb.main_process.storage import tasks as task_store
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source

log = logging.getLogger(__name__)
Notify = Callable[[str, dict[str, Any]], None]
#: Seconds between two progress notifications of one task (the last one is always sent).
PROGRESS_INTERVAL_S = 0.1


class TaskManager:
    def __init__(self, db: ConnectionPool, notify: Notify) -> None:
        self._db = db
        self._notify = notify
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-task")
        self._tokens: dict[str, CancelToken] = {}
        self._queued_sources: dict[str, str] = {}  # source id → queued task id
        self._lock = threading.Lock()
        self._futures: set[Future[None]] = set()
        task_store.mark_interrupted(db.get())

    def sync(self, library_id: str, source_id: str) -> TaskInfo:
        """Queue a sync of one source; a sync already waiting for that source is reused."""
        with self._lock:
            queued = self._queued_sources.get(source_id)
            if queued is not None:
                return task_store.get(self._db.get(), queued)
            info = task_store.create(self._db.get(), library_id, "sync", source_id)
            self._tokens[info.id] = CancelToken()
            self._queued_sources[source_id] = info.id
        self._publish(info)
        future = self._pool.submit(self._run_sync, info.id, library_id, source_id)
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        return info

    def cancel(self, task_id: str) -> TaskInfo:
        info = task_store.get(self._db.get(), task_id)
        token = self._tokens.get(task_id)
        if token is not None and info.state not in FINISHED_STATES:
            token.cancel()
            if info.state == "queued":
                # It will stop before its first document; say so now.
                info = task_store.update(self._db.get(), task_id, "cancelled", 0, 0, 0, None)
                self._publish(info)
        return info

    def shutdown(self, wait_s: float = 5.0) -> None:
        for token in list(self._tokens.values()):
            token.cancel("the app is closing")
        self._pool.shutdown(wait=False, cancel_futures=True)
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

    def _publish(self, info: TaskInfo) -> None:
        self._notify(NOTIFY_TASK.name, info.to_wire())

    def _run_sync(self, task_id: str, library_id: str, source_id: str) -> None:
        conn = self._db.get()
        with self._lock:
            self._queued_sources.pop(source_id, None)
        token = self._tokens[task_id]
        if token.cancelled:
            self._tokens.pop(task_id, None)
            return
        last = [0.0]
        state: dict[str, Any] = {"done": 0, "total": 0, "failed": 0}

        def progress(done: int, total: int, current: str | None, failed: int) -> None:
            state.update(done=done, total=total, failed=failed)
            now = time.monotonic()
            if now - last[0] >= PROGRESS_INTERVAL_S or done == total:
                last[0] = now
                self._publish(
                    task_store.update(conn, task_id, "running", done, total, failed, current)
                )

        try:
            self._publish(task_store.update(conn, task_id, "running", 0, 0, 0, None))
            source = sources.get(conn, library_id, source_id)
            report = sync_source(conn, source, token, progress)
            if report.unavailable:
                final = task_store.update(
                    conn, task_id, "failed", 0, 0, 0, None, report.unavailable
                )
            else:
                final = task_store.update(
                    conn, task_id, "completed", report.total, report.total, report.failed, None
                )
        except CancelledError as exc:
            final = task_store.update(
                conn,
                task_id,
                "cancelled",
                state["done"],
                state["total"],
                state["failed"],
                None,
                exc.message,
            )
        except KbError as exc:
            final = task_store.update(
                conn,
                task_id,
                "failed",
                state["done"],
                state["total"],
                state["failed"],
                None,
                exc.message,
            )
        except Exception as exc:
            log.exception("sync task %s crashed", task_id)
            final = task_store.update(
                conn,
                task_id,
                "failed",
                state["done"],
                state["total"],
                state["failed"],
                None,
                f"internal error ({exc.__class__.__name__})",
            )
        finally:
            self._tokens.pop(task_id, None)
        self._publish(final)
        changed = ChangedParams(
            method=NOTIFY_TASK.name, library_ids=[library_id], sources=True, documents=True
        )
        self._notify(NOTIFY_CHANGED.name, changed.to_wire())
