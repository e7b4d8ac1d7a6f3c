"""The Tasks tab: running and finished tasks with document-level progress, cancel and reasons.
Cancelled and interrupted read differently from failed (symbol and words, not colour)."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import TASKS_CANCEL, TASKS_LIST
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.tasks.progress import ocr_running, pace_text, progress, summary
from goodbuddy_kb.ui.widgets.table_model import Column, ColumnFitter, RowsModel

TASK_COLUMNS: list[Column[t.TaskInfo]] = [
    Column("col.task", lambda i: tr(f"task.kind.{i.kind}")),
    Column("col.state", lambda i: tr(f"task.state.{i.state}")),
    Column("col.progress", progress, lambda i: i.current or progress(i)),
    Column("col.summary", summary, summary),
    Column("col.created", lambda i: i.created_at[:19].replace("T", " ")),
    Column("col.error", lambda i: say_field(i, "error"), lambda i: say_field(i, "error")),
]


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
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._update())
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.bar, 1)
        row.addWidget(self.cancel_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.view, 1)
        link.task.connect(self._on_task)
        self._update()

    def show_library(self, library_id: str | None) -> None:
        self.library_id = library_id
        self.refresh()

    def refresh(self) -> None:
        def done(result: t.TaskListResponse | None, error: KbError | None) -> None:
            if result is not None:
                self.model.set_rows(result.tasks)
                self._update()

        self.link.call(TASKS_LIST, t.TaskListRequest(library_id=self.library_id), done)

    def detach(self) -> None:
        """Stop following the backend (this tab is being replaced)."""
        self.link.task.disconnect(self._on_task)

    def _on_task(self, params: dict[str, Any]) -> None:
        info = t.TaskInfo.model_validate(params)
        if self.library_id is not None and info.library_id != self.library_id:
            return
        rows = self.model.rows
        index = next((i for i, r in enumerate(rows) if r.id == info.id), None)
        if index is None:
            rows.insert(0, info)
        else:
            rows[index] = info
        current = self.current()
        self.model.set_rows(rows)
        if current is not None:
            self.view.selectRow(next((i for i, r in enumerate(rows) if r.id == current.id), 0))
        self._update()

    def current(self) -> t.TaskInfo | None:
        index = self.view.currentIndex()
        return self.model.row_at(index.row()) if index.isValid() else None

    def _update(self) -> None:
        # the selected task, else the one at work, else the latest (its final count, not 0/1)
        info = (
            self.current()
            or next((r for r in self.model.rows if r.state in ("queued", "running")), None)
            or (self.model.rows[0] if self.model.rows else None)
        )
        # a running task that has not counted its work yet (a model loading) shows as busy
        busy = info is not None and info.state == "running" and info.total == 0
        self.bar.setMaximum(0 if busy else (max(1, info.total) if info else 1))
        self.bar.setValue(info.done if info else 0)
        pace = pace_text(info) if info is not None and info.state == "running" else ""
        if info is not None and ocr_running(info):
            # pages of the document being read, and its name (a documents-per-second pace
            # would mix pages of different documents)
            self.bar.setFormat(progress(info).replace("%", "%%"))
        elif info is None:
            self.bar.setFormat(tr("task.none"))
        else:
            self.bar.setFormat(f"%v/%m · {pace}" if pace else "%v/%m")
        self.cancel_button.setEnabled(info is not None and info.state in ("queued", "running"))

    def cancel_current(self) -> None:
        info = self.current() or next(
            (r for r in self.model.rows if r.state in ("queued", "running")), None
        )
        if info is not None:
            self.link.call(
                TASKS_CANCEL, t.TaskCancelRequest(task_id=info.id), lambda _r, _e: self.refresh()
            )
