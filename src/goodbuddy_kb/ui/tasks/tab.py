"""The Tasks tab: running and finished tasks with document-level progress, cancel and reasons.
Cancelled and interrupted read differently from failed (symbol and words, not colour)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import TASKS_CANCEL, TASKS_LIST
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.tasks.progress import bar_text, growing, progress, summary
from goodbuddy_kb.ui.widgets.table_model import Column, ColumnFitter, RowsModel


def _created(info: t.TaskInfo) -> str:
    return info.created_at[:19].replace("T", " ")


TASK_COLUMNS: list[Column[t.TaskInfo]] = [
    Column("col.task", lambda i: tr(f"task.kind.{i.kind}")),
    Column("col.state", lambda i: tr(f"task.state.{i.state}")),
    Column(
        "col.progress",
        progress,
        lambda i: progress(i) if i.current in t.STEPS else i.current or progress(i),
    ),
    Column("col.summary", summary, summary),
    # month, day and time (the whole stamp in the tooltip)
    Column("col.created", lambda i: i.created_at[5:16].replace("T", " "), _created),
    Column("col.error", lambda i: say_field(i, "error"), lambda i: say_field(i, "error")),
]


def details(info: t.TaskInfo | None) -> str:
    """What the followed task wrote and why it failed, whole and wrapped under the table (its
    cells elide in a narrow window; the bar above says its progress)."""
    if info is None:
        return ""
    lines = [summary(info), say_field(info, "error")]
    return "\n".join(line for line in lines if line)


class TasksTab(QtWidgets.QWidget):
    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.library_id: str | None = None
        self.model = RowsModel(TASK_COLUMNS, self)
        self.view = QtWidgets.QTableView()
        self.view.setModel(self.model)
        self.view.setAccessibleName(tr("tab.tasks"))
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setTabKeyNavigation(False)
        # No sideways scrolling at 800 px: long cells elide, their text in the tooltip.
        self.fitter = ColumnFitter(self.view, stretch=len(TASK_COLUMNS) - 1)
        self.bar = QtWidgets.QProgressBar()
        self.bar.setAccessibleName(tr("col.progress"))
        self.bar.setFormat("%v/%m")
        self.cancel_button = QtWidgets.QPushButton(tr("task.cancel"))
        self.cancel_button.setAccessibleName(tr("task.cancel"))
        self.cancel_button.clicked.connect(self.cancel_current)
        #: Tasks asked to stop that are still at work (one stops after its batch in flight: the
        #: row read "Running" and the button stayed live for seconds; a helper's try).
        self._cancelling: set[str] = set()
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._chosen())
        #: A task of this library that failed while the tab followed it and that nobody has
        #: looked at since: the bar stays on it (a graph run that ended seconds after a failed
        #: rebuild put "✓ Completed" in its place; a helper's try).
        self._failure: str | None = None
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)
        self.details = QtWidgets.QLabel()
        self.details.setWordWrap(True)
        self.details.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.details)
        link.task.connect(self._on_task)
        link.stopped.connect(self._backend_stopped)
        self._update()

    def show_library(self, library_id: str | None) -> None:
        if library_id != self.library_id:
            self._failure = None
            self._show_rows([], None)  # never another library's tasks while this one's load
        self.library_id = library_id
        self.refresh()

    def refresh(self) -> None:
        library_id = self.library_id

        def done(result: t.TaskListResponse | None, error: KbError | None) -> None:
            if result is not None and library_id == self.library_id:
                known = {r.id: r for r in self.model.rows}
                # a notification that arrived while the list was read is newer than the list
                rows = [
                    known[r.id] if r.id in known and r.is_older_than(known[r.id]) else r
                    for r in result.tasks
                ]
                self._show_rows(rows, self.current())

        self.link.call(TASKS_LIST, t.TaskListRequest(library_id=self.library_id), done)

    def detach(self) -> None:
        """Stop following the backend (this tab is being replaced)."""
        self.link.task.disconnect(self._on_task)
        self.link.stopped.disconnect(self._backend_stopped)

    def _backend_stopped(self, _reason: str) -> None:
        """The backend is gone, and its unfinished tasks with it: they read as they will after
        a restart, interrupted (one read "⟳ Running · 682/2364 · about 3 min left" with Cancel
        enabled under the "backend stopped" banner; a helper's try)."""
        # ended now: the bar follows it, not an older finished task (a helper's try)
        now = datetime.now(UTC).isoformat(timespec="milliseconds")
        cut: dict[str, object] = {"state": "interrupted", "eta_seconds": None, "finished_at": now}
        cut |= {"error": "the backend stopped", "error_code": "backend.stopped", "error_params": {}}
        rows = [
            r.model_copy(update=cut) if r.state in ("queued", "running") else r
            for r in self.model.rows
        ]
        self._show_rows(rows, self.current())

    def _chosen(self) -> None:
        if self.current() is not None:
            self._failure = None  # looked at (it, or another task chosen instead)
        self._update()

    def _on_task(self, params: dict[str, Any]) -> None:
        info = t.TaskInfo.model_validate(params)
        if self.library_id is not None and info.library_id != self.library_id:
            return
        if info.state == "failed":
            self._failure = info.id
        elif info.state == "completed" and self._failure is not None:
            failed = next((r for r in self.model.rows if r.id == self._failure), None)
            if failed is None or (failed.kind, failed.document_id) == (info.kind, info.document_id):
                self._failure = None  # the same work done again, and done
        rows = self.model.rows
        index = next((i for i, r in enumerate(rows) if r.id == info.id), None)
        if index is not None:
            # The common case, a running task's progress: the row changes in place, so the
            # selection never blinks and the bar is repainted with the row (an older report
            # of a task already shown newer changes nothing).
            if not info.is_older_than(rows[index]):
                self.model.replace_row(index, info)
                self._update()
            return
        rows.insert(0, info)
        selected = self.current()
        if selected is not None and selected.state in t.FINISHED_STATES:
            selected = None  # a new run starts: the bar follows it, not a finished one
        self._show_rows(rows, selected)

    def _show_rows(self, rows: list[t.TaskInfo], selected: t.TaskInfo | None) -> None:
        """Show ``rows``, keeping the selected task selected (by its id, not its row)."""
        self.model.set_rows(rows)
        if selected is not None:
            self._select(selected.id)
        self._update()

    def _select(self, task_id: str) -> None:
        """Select the row of task ``task_id``, where it is listed."""
        row = next((i for i, r in enumerate(self.model.rows) if r.id == task_id), None)
        if row is not None:
            self.view.selectRow(row)

    def current(self) -> t.TaskInfo | None:
        """The task a person selected. Not Qt's current row: the table takes one by itself when
        it gets the focus (its first row), and the bar stayed on a finished sync so chosen
        while the vectorisation after it ran (a helper's try under Xvfb)."""
        rows = self.view.selectionModel().selectedRows()
        return self.model.row_at(rows[0].row()) if rows else None

    def followed(self) -> t.TaskInfo | None:
        """The task the bar shows: the selected one, else the newest at work, else a failure not
        looked at yet, else the one that ended last (a run just cancelled or finished, not a
        newer task that ended before it), else the newest."""
        rows = self.model.rows
        ended = [r for r in rows if r.finished_at]
        return (
            self.current()
            or next((r for r in rows if r.state in ("queued", "running")), None)
            or next((r for r in rows if r.id == self._failure), None)
            or (max(ended, key=lambda r: r.finished_at or "") if ended else None)
            or (rows[0] if rows else None)
        )

    def _update(self) -> None:
        info = self.followed()
        # a running task that has not counted its work yet (a model loading) shows as busy
        # (as is one whose total still grows with its import: its share done fell as it grew)
        busy = info is not None and info.state == "running" and (info.total == 0 or growing(info))
        total = info.total if info is not None else 0
        finished = info is not None and info.state == "completed"
        # The text first: a changed value repaints the bar at once, with the text it has.
        self.bar.setFormat(_literal(bar_text(info)))
        self.bar.setMaximum(0 if busy else max(1, total))
        self.bar.setValue(info.done if info and total else (1 if finished else 0))
        self.details.setText(details(info))
        at_work = info is not None and info.state in ("queued", "running")
        if info is not None and not at_work:
            self._cancelling.discard(info.id)  # it has stopped
        asked = at_work and info is not None and info.id in self._cancelling
        self.cancel_button.setEnabled(at_work and not asked)
        self.cancel_button.setText(tr("task.cancelling" if asked else "task.cancel"))

    def cancel_current(self) -> None:
        info = self.followed()
        if info is not None and info.state in ("queued", "running"):
            # The bar stays on the run being cancelled to its end: the button, disabled, passes
            # the focus to the table, and Qt makes its first row (another task) current.
            self._select(info.id)
            self._cancelling.add(info.id)
            self._update()
            self.link.call(
                TASKS_CANCEL, t.TaskCancelRequest(task_id=info.id), lambda _r, _e: self.refresh()
            )


def _literal(text: str) -> str:
    """``text`` as a progress bar format that shows it as it is: Qt fills in %v, %m and %p (a
    file name may hold them) and shows "%%" as two signs, so an invisible word joiner keeps a
    "%" before those letters from being read as a placeholder."""
    return re.sub(r"%(?=[vmp])", "%\u2060", text)
