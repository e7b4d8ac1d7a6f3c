"""A notice that a task started is followed by how it ended: "Rebuilding 5 documents — progress
and cancel in the Tasks tab." in the status bar must not outlive the rebuild it announces (a small
library's rebuild ends within a second; the notice stayed for eight)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.tasks.progress import bar_text, summary


def ended_text(info: t.TaskInfo) -> str:
    """``Rebuild · ✓ Completed · 5/5 (100%) · 175.6 documents/s · 5 written``."""
    written = summary(info)
    return " · ".join(x for x in (bar_text(info), written) if x)


def announce_end(link: BackendLink, task_id: str, notice: Callable[[str], None]) -> None:
    """Once the task ``task_id`` ends (completed, failed, cancelled, interrupted), ``notice``
    says how; the link stops being followed then."""

    def on_task(params: dict[str, Any]) -> None:
        if params.get("id") != task_id:
            return
        info = t.TaskInfo.model_validate(params)
        if info.state in t.FINISHED_STATES:
            link.task.disconnect(on_task)
            notice(ended_text(info))

    link.task.connect(on_task)


def library_rebuild(params: dict[str, Any]) -> bool | None:
    """Of a task notification: True while it is a library rebuild at work (queued or running),
    False once such a rebuild ended, None for any other task."""
    if params.get("kind") != "rebuild" or params.get("documentId"):
        return None
    return params.get("state") in ("queued", "running")
