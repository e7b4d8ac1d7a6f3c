"""Waiting for backend tasks to finish over a session's `notify:task` notifications: what the
CLI, the evaluation runner and the benchmarks do after starting a sync, rebuild or extraction.
How progress is shown is the caller's (``Progress``); without one the wait is silent."""

from __future__ import annotations

from typing import Protocol

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import TimeoutError_
from goodbuddy_kb.contracts.methods import NOTIFY_TASK, TASKS_LIST

#: How long one wait listens for the next notification before giving up on the rest.
NOTIFICATION_TIMEOUT_S = 3600


class Progress(Protocol):
    """Shows the tasks being waited for (the CLI's progress bar)."""

    def show(self, info: t.TaskInfo) -> None:
        """A task being waited for has moved."""

    def end(self) -> None:
        """One wait is over (its tasks finished, or it gave up)."""


def wait_for_tasks(
    session: Session, task_ids: list[str], progress: Progress | None = None
) -> list[t.TaskInfo]:
    """Follow task notifications until every task has finished; their last states, in order."""
    pending = set(task_ids)
    finished: dict[str, t.TaskInfo] = {}
    for info in session.client.call(TASKS_LIST, t.TaskListRequest(limit=200)).tasks:
        if info.id in pending and info.state in t.FINISHED_STATES:
            finished[info.id] = info
            pending.discard(info.id)
    while pending:
        try:
            method, params = session.client.next_notification(timeout=NOTIFICATION_TIMEOUT_S)
        except TimeoutError_:
            break
        if method != NOTIFY_TASK.name:
            continue
        info = t.TaskInfo.model_validate(params)
        if info.id not in pending:
            continue
        if progress is not None:
            progress.show(info)
        if info.state in t.FINISHED_STATES:
            finished[info.id] = info
            pending.discard(info.id)
    if progress is not None:
        progress.end()
    return [finished[i] for i in task_ids if i in finished]


def wait_for_library(
    session: Session, library_id: str, task_ids: list[str], progress: Progress | None = None
) -> list[t.TaskInfo]:
    """Wait for ``task_ids`` and then for the work they queued (vectorisation) in the library,
    so a backend the caller started is not closed under it."""
    infos = wait_for_tasks(session, task_ids, progress)
    while True:
        pending = [
            i.id
            for i in session.client.call(
                TASKS_LIST, t.TaskListRequest(library_id=library_id, limit=20)
            ).tasks
            if i.state in ("queued", "running")
        ]
        if not pending:
            return infos
        infos += wait_for_tasks(session, pending, progress)
