"""The retrieval test workbench (US-B1–B4): ask a real question of the current library without
a chat model; see ranked results with per-channel ranks, diagnostics and the assembled context.
It never creates a chat message, never calls a model, and changes nothing in the library.
Enter searches, Shift+Enter adds a line. What was asked and how (the question, top K, rerank,
the window's size, place and splitter) is remembered per library for the session (``memory.py``).
The result columns live in ``results.py``, the diagnostics and status wording in ``report.py``."""

from __future__ import annotations

import uuid
from typing import Any

import shiboken6

from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.library import LibrarySettings, SettingsGetRequest
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    RETRIEVE,
    SETTINGS_GET,
    SYSTEM_CANCEL,
)
from goodbuddy_kb.contracts.settings import FusionMethod, KnowledgeRetrievalSettings
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.relevance import BANDS, relevance_text, relevance_word
from goodbuddy_kb.ui.widgets.source_opener import SourceOpener, outcome_label
from goodbuddy_kb.ui.widgets.table_model import ColumnFitter, RowsModel
from goodbuddy_kb.ui.widgets.theme import SPACE
from goodbuddy_kb.ui.workbench.actions import ResultActions
from goodbuddy_kb.ui.workbench.memory import (
    WorkbenchMemory,
    WorkbenchState,
    followed,
    following,
)
from goodbuddy_kb.ui.workbench.report import (
    context_html,
    diagnostics_lines,
    effective_text,
    search_facts,
    status_text,
)
from goodbuddy_kb.ui.workbench.results import (
    PRE_RANK_COLUMN,
    RELEVANCE_COLUMN,
    RESULT_COLUMNS,
    preview_html,
)


class WorkbenchDialog(ResultActions, QtWidgets.QDialog):
    finished_search = QtCore.Signal()

    def __init__(
        self,
        link: BackendLink,
        library_id: str,
        library_name: str,
        parent: QtWidgets.QWidget | None = None,
        memory: WorkbenchMemory | None = None,
    ) -> None:
        super().__init__(parent)
        self.link = link
        self.library_id = library_id
        self.library_name = library_name
        self.request_id: str | None = None
        self.response: r.KnowledgeRetrievalResponse | None = None
        self.memory = memory if memory is not None else WorkbenchMemory()
        #: What this library's last workbench left (its top K and rerank win over the settings).
        self.remembered = self.memory.get(library_id)
        self.setWindowTitle(tr("workbench.title", name=library_name))
        # A window of its own beside the main one, not a dialog held above it: the main window
        # can come in front (its menus were out of reach under it), and minimising this one
        # leaves the main window be (the window manager minimised both).
        kind = QtCore.Qt.WindowType
        self.setWindowFlags(kind.Window | kind.WindowMinMaxButtonsHint | kind.WindowCloseButtonHint)
        # Room for every result column beside the diagnostics (within the screen).
        room = self.screen().availableGeometry()
        self.resize(min(1280, room.width()), min(800, room.height()))
        self._build_controls()
        self._build_results()
        self._lay_out()
        self._restore()
        #: The controls as they opened: one the person changed before the library's settings
        #: arrived keeps the person's choice.
        self._opened = self._choices()
        self.finished.connect(lambda _r: self._remember())
        self._count()
        self.query.setFocus()
        self.link.call(SETTINGS_GET, SettingsGetRequest(library_id=library_id), self._got_settings)
        link.changed.connect(self._on_changed)

    def _build_controls(self) -> None:
        """The query, its counter, top-k and rerank, Run/Cancel, and what is in effect."""
        self.query = QtWidgets.QPlainTextEdit()
        self.query.setAccessibleName(tr("workbench.query"))
        self.query.setPlaceholderText(tr("workbench.query.hint"))
        self.query.setMaximumHeight(64)
        self.query.setTabChangesFocus(True)
        self.query.installEventFilter(self)  # Enter searches, Shift+Enter adds a line
        self.query.viewport().installEventFilter(self)
        #: The question kept from before is chosen whole by the first click into it.
        self._whole = False
        self.query.textChanged.connect(self._count)
        self.counter = QtWidgets.QLabel()
        self.rerank = QtWidgets.QComboBox()
        self.rerank.setAccessibleName(tr("workbench.rerank"))
        for mode in ("off", "local", "learned"):
            self.rerank.addItem(tr(f"workbench.rerank.{mode}"), mode)
        # One query's fusion, to compare with the library's (its own setting is the default).
        self.fusion = QtWidgets.QComboBox()
        self.fusion.setAccessibleName(tr("workbench.fusion"))
        for method in ("adaptive", "rrf"):
            self.fusion.addItem(tr(f"fusion.{method}"), method)
        self.top_k = QtWidgets.QSpinBox()
        self.top_k.setRange(1, 20)
        self.top_k.setValue(6)
        self.top_k.setAccessibleName(tr("field.topK"))
        #: The library's stored settings; the search sends only what the user changed.
        self.library_settings: KnowledgeRetrievalSettings | None = None
        self.effective = QtWidgets.QLabel(tr("workbench.effective.loading"))
        self.effective.setWordWrap(True)
        self.effective.setAccessibleName(tr("workbench.effective"))
        self.top_k.valueChanged.connect(lambda _v: self._show_effective())
        self.rerank.currentIndexChanged.connect(lambda _i: self._show_effective())
        self.fusion.currentIndexChanged.connect(lambda _i: self._show_effective())
        self.run_button = QtWidgets.QPushButton(tr("workbench.run"))
        self.run_button.setAccessibleName(tr("workbench.run"))
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QtWidgets.QPushButton(tr("workbench.cancel"))
        self.cancel_button.setAccessibleName(tr("workbench.cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.status = QtWidgets.QLabel()
        self.opener = SourceOpener(self, self.link)
        self.opened = outcome_label(self.opener)
        self.status.setWordWrap(True)
        self.status.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Minimum
        )
        self.status.setAccessibleName(tr("workbench.diagnostics"))

    def _build_results(self) -> None:
        """The result table, the preview/diagnostics/context tabs and the chunk actions."""
        self.results = RowsModel(RESULT_COLUMNS, self, muted=lambda x: x.below_floor)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.results)
        self.table.setAccessibleName(tr("workbench.results"))
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().hide()  # the # column is the rank
        # Columns share the width (the snippet takes what is left; the relevance and its dots
        # read whole); cut cells end in "…" with the text in their tooltip, never sideways.
        # The relevance reads whole: its number, dots and the longest word of its bands.
        widest = max(
            # (0.001 reads "<0.01", the widest figure)
            self.table.fontMetrics().horizontalAdvance(relevance_text(0.001, below) + "  ")
            for below in (False, True)
        )
        words = max(
            self.table.fontMetrics().horizontalAdvance(relevance_word(p)) for p, _key in BANDS
        )
        self.fitter = ColumnFitter(
            self.table,
            stretch=len(RESULT_COLUMNS) - 1,
            minimum={RELEVANCE_COLUMN: max(widest, words + 90) + 12},
            whole_titles=True,  # "Document", "Pre-rerank" read whole, never "Documen"
            # the document and the channels read whole; a long location and the snippet (read
            # in full beside the table) give up their room first
            whole=frozenset({1, 4}),
        )
        self.table.setColumnHidden(PRE_RANK_COLUMN, True)  # until a search with a rerank
        # The snippet is read in full below the table (no horizontal scrolling to reach it).
        # (A tab beside the diagnostics: the result table keeps its height at 800×600.)
        self.preview = QtWidgets.QTextBrowser()
        self.preview.setObjectName("data")  # the documents' own words
        self.preview.setAccessibleName(tr("col.snippet"))
        # The preview follows the selection, not the current row, which a click makes current
        # before it selects it, and which ctrl+click leaves current while it deselects it.
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._preview())
        self.diagnostics = QtWidgets.QTextBrowser()
        self.diagnostics.setAccessibleName(tr("workbench.diagnostics"))
        self.context = QtWidgets.QTextBrowser()
        self.context.setAccessibleName(tr("workbench.context"))
        # "View chunk" shows the chunk in a tab of its own, added when first asked for: in the
        # Context tab it replaced the search's context until the next search
        self.chunk_view = QtWidgets.QTextBrowser()
        self.chunk_view.setAccessibleName(tr("workbench.chunk"))
        self.view_chunk = QtWidgets.QPushButton(tr("workbench.view_chunk"))
        self.view_chunk.setAccessibleName(tr("workbench.view_chunk"))
        self.view_chunk.clicked.connect(self.show_chunk)
        self.open_source = QtWidgets.QPushButton(tr("workbench.open_source"))
        self.open_source.setAccessibleName(tr("workbench.open_source"))
        self.open_source.clicked.connect(self.open_selected)
        for button in (self.view_chunk, self.open_source):
            button.setEnabled(False)  # until a result is selected

    def _lay_out(self) -> None:
        controls = QtWidgets.QHBoxLayout()
        top_label = QtWidgets.QLabel(tr("field.topK"))
        top_label.setBuddy(self.top_k)
        rerank_label = QtWidgets.QLabel(tr("workbench.rerank"))
        rerank_label.setBuddy(self.rerank)
        fusion_label = QtWidgets.QLabel(tr("workbench.fusion"))
        fusion_label.setBuddy(self.fusion)
        # Each field beside its label, the buttons at the end: extra width goes between the
        # fields and the buttons, not between a label and its field.
        pairs = ((top_label, self.top_k), (rerank_label, self.rerank), (fusion_label, self.fusion))
        for n, (label, field) in enumerate(pairs):
            if n:
                controls.addSpacing(2 * SPACE)
            controls.addWidget(label)
            controls.addWidget(field)
        controls.addStretch(1)
        controls.addWidget(self.run_button)
        controls.addWidget(self.cancel_button)
        self.tabs = tabs = QtWidgets.QTabWidget()
        tabs.addTab(self.preview, tr("col.snippet"))
        tabs.addTab(self.diagnostics, tr("workbench.diagnostics"))
        tabs.addTab(self.context, tr("workbench.context"))
        actions = QtWidgets.QHBoxLayout()
        actions.addWidget(self.view_chunk)
        actions.addWidget(self.open_source)
        actions.addWidget(self.opened, 1)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        left = QtWidgets.QWidget()
        left_layout = QtWidgets.QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addLayout(actions)
        self.splitter.addWidget(left)
        self.splitter.addWidget(tabs)
        self.splitter.setStretchFactor(0, 3)  # results first; diagnostics beside or below
        self.splitter.setStretchFactor(1, 1)
        layout = QtWidgets.QVBoxLayout(self)
        query_label = QtWidgets.QLabel(tr("workbench.query"))
        query_label.setBuddy(self.query)
        # The counter beside the question's label, over the box it counts (in the row of
        # fields it made the dialog 850 px wide at least, wider than an 800 px screen).
        heading = QtWidgets.QHBoxLayout()
        heading.addWidget(query_label)
        heading.addStretch(1)
        heading.addWidget(self.counter)
        layout.addLayout(heading)
        layout.addWidget(self.query)
        layout.addLayout(controls)
        layout.addWidget(self.effective)
        layout.addWidget(self.status)
        layout.addWidget(self.splitter, 1)

    def _got_settings(self, result: LibrarySettings | None, error: KbError | None) -> None:
        if not shiboken6.isValid(self.top_k):
            return  # closed (its widgets deleted) before the answer came: nothing to fill in
        if result is None:
            self.effective.setText(
                tr("error.generic", message=error.message if error is not None else "")
            )
            return
        before = self._library_choices()
        self.library_settings = result.retrieval
        follows = following(self._choices(), before, self.remembered, self._opened)
        if follows[0]:
            self.top_k.setValue(result.retrieval.top_k)
        if follows[1]:
            self.rerank.setCurrentIndex(self.rerank.findData(self._library_rerank()))
        if follows[2]:
            self.fusion.setCurrentIndex(self.fusion.findData(result.retrieval.fusion))
        self._show_effective()

    def _library_choices(self) -> tuple[int, str, str] | None:
        s = self.library_settings
        return None if s is None else (s.top_k, self._library_rerank(), s.fusion)

    def _on_changed(self, params: dict[str, Any]) -> None:
        """This library's settings saved (here or by another client): read them again."""
        if params.get("settings") and self.library_id in params.get("libraryIds", []):
            request = SettingsGetRequest(library_id=self.library_id)
            self.link.call(SETTINGS_GET, request, self._got_settings)

    def _choices(self) -> tuple[int, str, str]:
        return self.top_k.value(), str(self.rerank.currentData()), str(self.fusion.currentData())

    def _restore(self) -> None:
        """This library's question, top K, rerank, size and splitter as they were left."""
        state = self.remembered
        if state is None:
            return
        self.query.setPlainText(state.query)
        self.query.selectAll()  # typing asks anew (it appended: "…expenses?reimbursement")
        # and so after a first click into it (the click put the cursor at the end: the same)
        self._whole = True
        self.top_k.setValue(state.top_k)
        self.rerank.setCurrentIndex(max(0, self.rerank.findData(state.rerank)))
        self.fusion.setCurrentIndex(max(0, self.fusion.findData(state.fusion)))
        self.resize(state.width, state.height)
        if state.position is not None:
            place = QtCore.QPoint(*state.position)
            # only where a screen still shows it (a screen unplugged since: Qt places it)
            if QtGui.QGuiApplication.screenAt(place + QtCore.QPoint(40, 20)) is not None:
                self.move(place)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        state = self.remembered
        vertical = self.splitter.orientation() == QtCore.Qt.Orientation.Vertical
        if state is not None and state.splitter and state.vertical == vertical:
            self.splitter.setSizes(state.splitter)

    def _remember(self) -> None:
        top_k, rerank, fusion = self._choices()
        self.remembered = WorkbenchState(
            followed=followed((top_k, rerank, fusion), self._library_choices()),
            query=self.query.toPlainText(),
            top_k=top_k,
            rerank=rerank,
            fusion=fusion,
            width=self.width(),
            height=self.height(),
            vertical=self.splitter.orientation() == QtCore.Qt.Orientation.Vertical,
            splitter=self.splitter.sizes(),
            position=(self.pos().x(), self.pos().y()),
        )
        self.memory.keep(self.library_id, self.remembered)

    def _library_rerank(self) -> str:
        s = self.library_settings
        return "local" if s is not None and s.local_rerank_enabled else "off"

    def _fusion(self) -> FusionMethod | None:
        """This query's fusion when the user switched it from the library's."""
        s, method = self.library_settings, self.fusion.currentData()
        return method if s is None or method != s.fusion else None

    def _overrides(self) -> tuple[r.RetrievalOverrides | None, r.RerankMode | None]:
        """Only what the user changed from the library's settings."""
        s = self.library_settings
        top_k = self.top_k.value()
        overrides = r.RetrievalOverrides(top_k=top_k) if s is None or top_k != s.top_k else None
        mode = self.rerank.currentData()
        return overrides, (mode if s is None or mode != self._library_rerank() else None)

    def _show_effective(self) -> None:
        s = self.library_settings
        if s is None:
            return
        text = effective_text(
            s,
            self.top_k.value(),
            str(self.rerank.currentData()),
            str(self.fusion.currentData()),
        )
        overrides, mode = self._overrides()
        changed = []
        if overrides is not None:
            changed.append(tr("workbench.effective.changed_top_k", value=s.top_k))
        if mode is not None:
            changed.append(
                tr(
                    "workbench.effective.changed_rerank",
                    value=tr(f"workbench.rerank.{self._library_rerank()}"),
                )
            )
        if self._fusion() is not None:
            library = tr(f"fusion.{s.fusion}")
            changed.append(tr("workbench.effective.changed_fusion", value=library))
        if changed:
            text += " · " + tr(
                "workbench.effective.changed", what=tr("list.join_clauses").join(changed)
            )
        if self.response is not None:  # what the last search scanned and filtered
            text += "\n" + search_facts(self.response)
        self.effective.setText(text)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        kind = event.type()
        if watched is self.query.viewport() and kind == QtCore.QEvent.Type.MouseButtonRelease:
            if self._whole:  # the first click into the kept question: once the click is done
                QtCore.QTimer.singleShot(0, self.query.selectAll)
            self._whole = False
        elif watched is self.query and kind == QtCore.QEvent.Type.KeyPress:
            self._whole = False
        if (
            watched is self.query
            and event.type() == QtCore.QEvent.Type.KeyPress
            and isinstance(event, QtGui.QKeyEvent)
            and event.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)
            and not event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier
        ):
            self.run()  # Enter (or Ctrl+Enter) searches; Shift+Enter adds a line
            return True
        return super().eventFilter(watched, event)

    def _preview(self) -> None:
        self.opened.clear()  # it was about the result selected before
        x = self.selected()
        for button in (self.view_chunk, self.open_source):  # nothing to act on: off
            button.setEnabled(x is not None)
        if x is None:
            self.preview.clear()
        else:
            self.preview.setHtml(preview_html(x))

    def resizeEvent(self, event: object) -> None:
        # Narrow windows stack results over diagnostics; degradation stays visible above both.
        narrow = self.width() < 900
        orientation = QtCore.Qt.Orientation.Vertical if narrow else QtCore.Qt.Orientation.Horizontal
        if orientation != self.splitter.orientation():
            self.splitter.setOrientation(orientation)
            # Results first: three parts of five in height, three of four in width (at two of
            # three, a 1400-pixel window cut the document paths and channels of the results).
            total = self.height() if narrow else self.width()
            first = total * 3 // 5 if narrow else total * 3 // 4
            self.splitter.setSizes([first, total - first])
        super().resizeEvent(event)  # type: ignore[arg-type]

    def _count(self) -> None:
        text = self.query.toPlainText()
        if len(text) > MAX_QUERY_CHARACTERS:
            cursor = self.query.textCursor()
            self.query.setPlainText(text[:MAX_QUERY_CHARACTERS])
            cursor.setPosition(MAX_QUERY_CHARACTERS)
            self.query.setTextCursor(cursor)
            return
        self.counter.setText(tr("workbench.counter", count=len(text), limit=MAX_QUERY_CHARACTERS))
        self.run_button.setEnabled(bool(text.strip()) and self.request_id is None)

    def run(self) -> None:
        text = self.query.toPlainText().strip()
        if not text or self.request_id is not None:
            return
        self.request_id = uuid.uuid4().hex
        overrides, mode = self._overrides()
        request = r.RetrieveRequest(
            library_ids=[self.library_id],
            query=text,
            overrides=overrides,
            rerank=mode,
            fusion=self._fusion(),
            request_id=self.request_id,
        )
        self.status.setText(tr("workbench.running"))
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.link.call(RETRIEVE, request, self._done)

    def cancel(self) -> None:
        if self.request_id is not None:
            self.link.call(
                SYSTEM_CANCEL, r.CancelRequest(request_id=self.request_id), lambda _r, _e: None
            )

    def _done(self, result: r.KnowledgeRetrievalResponse | None, error: KbError | None) -> None:
        self.request_id = None
        self.cancel_button.setEnabled(False)
        self._count()
        if error is not None or result is None:
            message = (
                tr("workbench.cancelled")
                if error is not None and error.code.value == "cancelled"
                else tr("error.generic", message=say_error(error) if error else "")
            )
            self.status.setText(message)
            self.finished_search.emit()
            return
        self.response = result
        self.table.setColumnHidden(PRE_RANK_COLUMN, result.diagnostics.rerank.applied == "off")
        self.results.set_rows([*result.results, *result.below_floor])
        self._preview()
        self.diagnostics.setPlainText("\n".join(diagnostics_lines(result)))
        self.context.setHtml(context_html(result.context))
        self._drop_chunk()  # a chunk of the last search's results
        self.status.setText(status_text(result))
        self._show_effective()
        if self.results.rowCount():  # (a greyed below-floor row too: its preview explains it)
            self.table.selectRow(0)
        self.finished_search.emit()
