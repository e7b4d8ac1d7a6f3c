"""The status bar's right-hand corner: the work going on in any library, as long as it goes on
("⟳ “Notes” · Vectorise · 340/1345 (25%) · +1"). Notices in the bar time out after seconds; a
sync of 1,500 files left its vectors building for 80 seconds after its notice had gone, and the
window then looked idle (a helper's try). Hidden while nothing is queued or running."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import TASKS_LIST
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.tasks.follow import ended_text
from goodbuddy_kb.ui.tasks.progress import count_text, growing, ocr_running, progress

AT_WORK = ("queued", "running")
#: The corner's least room, in pixels (up to half the window otherwise; the tooltip has it all).
WIDEST = 380


def shown_task(at_work: list[t.TaskInfo]) -> t.TaskInfo | None:
    """The task the corner names: the newest running one, else the oldest queued (next up)."""
    running = [i for i in at_work if i.state == "running"]
    if running:
        return max(running, key=lambda i: i.created_at)
    return min(at_work, key=lambda i: i.created_at) if at_work else None


def line(info: t.TaskInfo) -> str:
    """``“Notes” · Vectorise · 340/1345 (25%)`` (a queued task says it waits)."""
    library = tr("task.library", name=info.library_name) if info.library_name else ""
    counted = info.total and info.current not in t.MODEL_STEPS and not ocr_running(info)
    if info.state != "running":
        step = tr("task.state.queued")
    elif counted or growing(info):
        step = count_text(info)  # the count alone: the pace and the rest are in the tooltip
    else:
        step = progress(info).removeprefix("⟳ ")
    return " · ".join(x for x in (library, tr(f"task.kind.{info.kind}"), step) if x)


class Activity(QtWidgets.QLabel):
    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        #: Every task queued or running, by id (any library's).
        self.at_work: dict[str, t.TaskInfo] = {}
        self.setAccessibleName(tr("task.activity"))
        self.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        link.task.connect(self._on_task)
        link.connected.connect(lambda _pid: self.refresh())
        link.stopped.connect(lambda _reason: self._clear())
        self._show()

    def refresh(self) -> None:
        """Read the tasks at work (those that started before this window was listening)."""

        def done(result: t.TaskListResponse | None, error: KbError | None) -> None:
            if result is None:
                return
            listed = {r.id: r for r in result.tasks if r.state in AT_WORK}
            for task_id, known in self.at_work.items():  # a report since is newer
                if task_id in listed and listed[task_id].is_older_than(known):
                    listed[task_id] = known
            self.at_work = listed
            self._show()

        self.link.call(TASKS_LIST, t.TaskListRequest(limit=200), done)

    def _clear(self) -> None:
        self.at_work = {}
        self._show()

    def _on_task(self, params: dict[str, Any]) -> None:
        info = t.TaskInfo.model_validate(params)
        known = self.at_work.get(info.id)
        if known is not None and info.is_older_than(known):
            return
        if info.state in AT_WORK:
            self.at_work[info.id] = info
        else:
            self.at_work.pop(info.id, None)
        self._show()

    def _show(self) -> None:
        tasks = sorted(self.at_work.values(), key=lambda i: i.created_at)
        info = shown_task(tasks)
        if info is None:
            self.clear()
            self.setToolTip("")
            self.hide()
            return
        more = len(tasks) - 1
        text = f"⟳ {line(info)}"
        text = f"{text} · {tr('task.activity.more', n=more)}" if more else text
        # up to half the window (a fixed 380 px cut "Loadin…e embedding model" beside an empty
        # bar; a helper's try), the end cut if need be
        bar = self.parentWidget()
        room = max(WIDEST, bar.width() // 2) if bar is not None else WIDEST
        self.setText(self.fontMetrics().elidedText(text, QtCore.Qt.TextElideMode.ElideRight, room))
        lines = [ended_text(i) if i.state == "running" else line(i) for i in tasks]
        tip = "\n".join([*lines, tr("task.activity.where")])
        self.setToolTip(tip)
        if self.underMouse() and QtWidgets.QToolTip.isVisible():
            QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), tip, self)  # an open one follows
        self.show()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.LanguageChange:
            self.setAccessibleName(tr("task.activity"))
            self._show()
