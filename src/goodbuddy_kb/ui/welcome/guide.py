"""The sample library's tips, above its tabs: while its documents are imported it says so; then
its two questions (one Chinese, one English) as buttons that ask them in the workbench, and a
button to its knowledge graph. Closed with its own button; shown only while the sample library is
the one selected."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import system as y
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import TASKS_LIST
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import language, tr


class SampleGuide(QtWidgets.QFrame):
    #: Ask this question in the workbench.
    ask = QtCore.Signal(str)
    show_graph = QtCore.Signal()
    #: The questions can be asked now (the sample's documents are imported).
    ready = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sampleGuide")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self._link = link
        self.sample: y.SampleLibraryResponse | None = None
        self.closed = False
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.question_buttons: list[QtWidgets.QPushButton] = []
        self.graph_button = QtWidgets.QPushButton(tr("guide.graph"))
        self.graph_button.setAccessibleName(tr("guide.graph"))
        self.graph_button.clicked.connect(self.show_graph.emit)
        self.close_button = QtWidgets.QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAccessibleName(tr("guide.close"))
        self.close_button.setToolTip(tr("guide.close"))
        self.close_button.clicked.connect(self.close_tips)
        self._questions = QtWidgets.QVBoxLayout()
        self._questions.setSpacing(4)
        layout = QtWidgets.QVBoxLayout(self)
        # compact: with the card shown, the window still fits an 800×600 screen (it grew to
        # 800×655, its foot off the screen); the graph button beside the line, not a row
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.label, 1)
        top.addWidget(self.graph_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.close_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        layout.addLayout(self._questions)
        link.task.connect(self._on_task)
        self.hide()

    @property
    def library_id(self) -> str | None:
        return self.sample.library.id if self.sample is not None and not self.closed else None

    def show_sample(self, sample: y.SampleLibraryResponse, imported: bool = False) -> None:
        """The tips of this sample library; the questions wait for its import unless
        ``imported``."""
        self.sample = sample
        self.closed = False
        for pushed in self.question_buttons:
            pushed.deleteLater()
        self.question_buttons = []
        # one a line, whole; the one in the window's language first (an English window
        # suggested a Chinese question first; a helper's try)
        english = language() == "en"
        for question in sorted(sample.questions, key=lambda q: q.isascii() != english):
            pushed = QtWidgets.QPushButton(question)
            pushed.setAccessibleName(question)
            pushed.setStyleSheet("text-align: left; padding: 2px 8px;")
            pushed.clicked.connect(lambda _c=False, q=question: self.ask.emit(q))
            self._questions.addWidget(pushed)
            self.question_buttons.append(pushed)
        self._set_ready(imported)
        if not imported and sample.task_id is not None:
            self._link.call(TASKS_LIST, t.TaskListRequest(limit=50), self._listed)

    @property
    def is_ready(self) -> bool:
        return bool(self.question_buttons) and self.question_buttons[0].isEnabled()

    def _set_ready(self, ready: bool) -> None:
        self.label.setText(tr("guide.ready") if ready else tr("guide.importing"))
        for pushed in [*self.question_buttons, self.graph_button]:
            pushed.setEnabled(ready)
        if ready:
            self.ready.emit()

    def _listed(self, result: t.TaskListResponse | None, error: KbError | None) -> None:
        for info in result.tasks if result is not None else []:
            self._follow(info)

    def _on_task(self, params: dict[str, Any]) -> None:
        self._follow(t.TaskInfo.model_validate(params))

    def _follow(self, info: t.TaskInfo) -> None:
        sample = self.sample
        if sample is None or info.id != sample.task_id or self.is_ready:
            return
        if info.state in t.FINISHED_STATES:
            self._set_ready(True)

    def close_tips(self) -> None:
        self.closed = True
        self.hide()
