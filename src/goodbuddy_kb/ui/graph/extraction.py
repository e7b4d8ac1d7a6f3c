"""The Knowledge graph tab's extraction bar: the graph's state in words (strategy, counts, the
graph channel's weight or why it does nothing, the model calls a run would make, the last
extraction task and its error), the progress of a running extraction, "needs re-extraction",
and the extract, cancel, settings and ontology buttons (signals; the tab acts)."""

from __future__ import annotations

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.graph.state import GraphState
from goodbuddy_kb.ui.graph.texts import status_line
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.tasks.progress import progress
from goodbuddy_kb.ui.widgets.buttons import button


class ExtractionBar(QtWidgets.QWidget):
    extract_requested = QtCore.Signal()
    cancel_requested = QtCore.Signal()
    settings_requested = QtCore.Signal()
    ontology_requested = QtCore.Signal()

    def __init__(self, state: GraphState, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.status = QtWidgets.QLabel()
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.rebuild_notice = QtWidgets.QLabel("⟳ " + tr("graph.needs_rebuild"))
        self.rebuild_notice.setObjectName("notice")
        self.rebuild_notice.setWordWrap(True)
        self.rebuild_notice.hide()
        self.bar = QtWidgets.QProgressBar()
        self.bar.setAccessibleName(tr("graph.progress"))
        self.bar.setMaximumHeight(18)
        self.extract_button = button("graph.extract", self.extract_requested.emit)
        self.cancel_button = button("task.cancel", self.cancel_requested.emit)
        self.settings_button = button("graph.settings", self.settings_requested.emit)
        self.ontology_button = button("graph.ontology", self.ontology_requested.emit)
        top = QtWidgets.QGridLayout()
        top.addWidget(self.status, 0, 0, 1, 5)
        top.addWidget(self.bar, 1, 0)
        top.addWidget(self.extract_button, 1, 1)
        top.addWidget(self.cancel_button, 1, 2)
        top.addWidget(self.settings_button, 1, 3)
        top.addWidget(self.ontology_button, 1, 4)
        top.setColumnStretch(0, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.rebuild_notice)

    def _status_text(self, info: g.GraphInfo) -> str:
        """The graph's counts on the first line; the off note or the channel's weight, the
        model calls a run would make and the extraction task on the second."""
        parts = [status_line(info)]
        if info.settings.strategy == "off":
            parts.append(tr("graph.off_note"))
        elif self.state.weight is not None:
            parts.append(tr("graph.weight", weight=f"{self.state.weight:g}"))
        estimate = getattr(info, "estimated_model_calls", None)
        if estimate is not None and info.settings.strategy == "model":
            parts.append(tr("graph.estimate", count=estimate))
        run = info.last_run
        if run is not None and run.json_mode in ("json_object", "plain"):
            parts.append(tr(f"graph.json_mode.{run.json_mode}"))
        task = self.state.task
        if task is not None:
            state = tr(f"task.state.{task.state}")
            line = tr("graph.task", state=state, progress=progress(task))
            error = say_field(task, "error")
            parts.append(f"{line} — {error}" if error else line)
        return " · ".join(parts[:1]) + ("\n" + " · ".join(parts[1:]) if parts[1:] else "")

    def show_state(self) -> None:
        """The state's graph, weight and task in words; extract only when the graph is on and
        no extraction runs, cancel only while one does."""
        info, task = self.state.info, self.state.task
        if info is None:
            self.status.setText(tr("graph.loading") if self.state.library_id else "")
        else:
            self.status.setText(self._status_text(info))
            self.rebuild_notice.setVisible(info.needs_rebuild and info.settings.strategy != "off")
        running = task is not None and task.state in ("queued", "running")
        self.bar.setVisible(running)
        if running and task is not None:
            busy = task.total == 0
            self.bar.setMaximum(0 if busy else task.total)
            self.bar.setValue(task.done)
        on = info is not None and info.settings.strategy != "off"
        self.extract_button.setEnabled(on and not running)
        self.extract_button.setToolTip("" if on else tr("graph.off_note"))
        self.cancel_button.setEnabled(running)
        for pushed in (self.settings_button, self.ontology_button):
            pushed.setEnabled(info is not None)
