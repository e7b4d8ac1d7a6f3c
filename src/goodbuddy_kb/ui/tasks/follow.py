"""A notice that a task started is followed by how it ended: "Rebuilding 5 documents — progress
and cancel in the Tasks tab." in the status bar must not outlive the rebuild it announces (a small
library's rebuild ends within a second; the notice stayed for eight)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.tasks.progress import bar_text, summary


def ended_text(info: t.TaskInfo) -> str:
    """``“Notes” · Rebuild · ✓ Completed · 5/5 (100%) · 17.5 documents/s · 5 written``: in the
    status bar, which any library's task reaches, it names the library (two libraries syncing
    the same folder read alike). A task stopped for a reason of its own says it ("⊘ Cancelled ·
    994/1600 · 994 chunks vectorised" read as work kept for a library just deleted; a
    helper's try); a person's own cancel needs no saying."""
    library = tr("task.library", name=info.library_name) if info.library_name else ""
    why = "" if info.error_code == "task.cancelled_by_user" else say_field(info, "error")
    return " · ".join(x for x in (library, bar_text(info), summary(info), why) if x)


def announce_end(link: BackendLink, task_id: str, notice: Callable[[str], None]) -> None:
    """Once the task ``task_id`` ends (completed, failed, cancelled, interrupted), ``notice``
    says how; the link stops being followed then. A rebuild or sync that leaves its library's
    vectors still being built (a vectorisation it queued, or one at work) says so, and that
    vectorisation's end is announced in turn ("Rebuild · ✓ Completed" read as all done while
    the vectors went on for a minute; after a sync of 1,500 files the bar was blank for the 80
    seconds its vectors took)."""
    vectorising: dict[str, set[str]] = {}  # library → its vectorisations at work

    def on_task(params: dict[str, Any]) -> None:
        info = t.TaskInfo.model_validate(params)
        if info.id != task_id:
            if info.kind == "vectorize" and info.library_id is not None:
                at_work = vectorising.setdefault(info.library_id, set())
                if info.state in t.FINISHED_STATES:
                    at_work.discard(info.id)
                else:
                    at_work.add(info.id)
            return
        if info.state in t.FINISHED_STATES:
            link.task.disconnect(on_task)
            text = ended_text(info)
            going_on = sorted(vectorising.get(info.library_id or "", ()))
            if info.kind in ("rebuild", "sync") and going_on:
                text = f"{text} · {tr('task.vectors_going_on')}"
                announce_end(link, going_on[0], notice)
            # its widget may have gone with a language switch (the window is built anew)
            with contextlib.suppress(RuntimeError):
                notice(text)

    link.task.connect(on_task)


def manual_work_lost(params: dict[str, Any]) -> str | None:
    """Of a task notification: how a sync ended that dropped a person's chunk work (a file
    edited on disk, synced by the watcher: the ✎ mark went without a word; a helper's try),
    as the task's row says it; None for any other."""
    if params.get("kind") != "sync" or params.get("state") not in t.FINISHED_STATES:
        return None
    info = t.TaskInfo.model_validate(params)
    work = info.summary.manual_work if info.summary is not None else None
    return ended_text(info) if work is not None and work.discarded.total else None


def library_rebuild(params: dict[str, Any]) -> bool | None:
    """Of a task notification: True while it is a library rebuild at work (queued or running),
    False once such a rebuild ended, None for any other task."""
    if params.get("kind") != "rebuild" or params.get("documentId"):
        return None
    return params.get("state") in ("queued", "running")
