"""The Knowledge graph tab: the frame around the extraction bar (``extraction``: the graph's
state, progress, start and cancel), the entity list (``entity_list``), the selected entity's
panel (``panel``) and the picture of its neighbourhood (``picture``); it starts and cancels
the extraction. The tab loads the library's graph into its ``GraphState``, routes
the panel's and the list's signals to the edit actions (``edits``) and shows the entity asked
for last."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import ErrorCode, KbError
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITY,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_NEIGHBOURHOOD,
    SETTINGS_GET,
    TASKS_CANCEL,
    TASKS_LIST,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chunks.dialog import ChunksDialog
from goodbuddy_kb.ui.graph.edits import GraphEdits
from goodbuddy_kb.ui.graph.entity_list import EntityListWidget
from goodbuddy_kb.ui.graph.extraction import ExtractionBar
from goodbuddy_kb.ui.graph.panel import EntityPanel
from goodbuddy_kb.ui.graph.picture import NeighbourhoodView
from goodbuddy_kb.ui.graph.state import GraphState
from goodbuddy_kb.ui.graph.texts import empty_text, entity_type_name, relation_type_name
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.tasks.follow import announce_end
from goodbuddy_kb.ui.widgets.theme import graph_colour
from goodbuddy_kb.ui.widgets.ticket import Ticket


class GraphTab(QtWidgets.QWidget):
    notice = QtCore.Signal(str)
    #: The entity panel and the picture show an entity (tests wait on it).
    entity_shown = QtCore.Signal(str)

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.state = GraphState()
        self.dialog: QtWidgets.QDialog | None = None
        self.chunks_dialog: ChunksDialog | None = None
        #: The entity last asked for: only its answer is shown (a background refresh that
        #: asked earlier never pulls the panel back to the entity the person left).
        self._wanted: str | None = None
        self._entities = Ticket()
        #: What the tab a language switch replaced showed: (search, entity), until the library
        #: is shown again.
        self._handed: tuple[str, str | None] | None = None
        self.edits = GraphEdits(link, self.state, self)
        self._build()
        self._connect()
        link.changed.connect(self._on_changed)
        link.task.connect(self._on_task)
        self._refresh_timer = QtCore.QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(300)
        self._refresh_timer.timeout.connect(self.refresh)

    def detach(self) -> None:
        """Stop following the backend (this tab is being replaced)."""
        self.link.changed.disconnect(self._on_changed)
        self.link.task.disconnect(self._on_task)
        self._refresh_timer.stop()
        self.entity_list.detach()

    # -- layout --------------------------------------------------------------------------
    def _build(self) -> None:
        self.extraction = ExtractionBar(self.state)
        self.entity_list = EntityListWidget(self.link, self.state)
        self.panel = EntityPanel(self.state)
        self.picture = NeighbourhoodView()
        self.sides = QtWidgets.QTabWidget()
        self.sides.addTab(self.panel, tr("graph.details"))
        self.sides.addTab(self._build_picture_page(), tr("graph.picture"))
        self.empty = QtWidgets.QLabel(tr("graph.empty"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        right = QtWidgets.QStackedWidget()
        right.addWidget(self.empty)
        right.addWidget(self.sides)
        self.right = right
        splitter = QtWidgets.QSplitter()
        splitter.addWidget(self.entity_list)
        splitter.addWidget(right)
        splitter.setChildrenCollapsible(False)
        # both sides give up room when the window narrows (the list a third, the panel the rest)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        self.splitter = splitter
        self.entity_list.setMinimumWidth(200)
        right.setMinimumWidth(260)
        for watched in (self.entity_list.list_view, self.panel.relation_view, self.sides):
            watched.installEventFilter(self)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.extraction)
        layout.addWidget(splitter, 1)
        self._update_state()

    def _build_picture_page(self) -> QtWidgets.QWidget:
        self.legend = QtWidgets.QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(QtCore.Qt.TextFormat.RichText)
        hint = QtWidgets.QLabel(tr("graph.picture.hint"))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        # on a short window the picture needs the room: the hint moves to the tooltip
        self.picture_hint = hint
        self.picture.setToolTip(tr("graph.picture.hint"))
        page = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.legend)
        layout.addWidget(self.picture, 1)
        layout.addWidget(hint)
        return page

    def _connect(self) -> None:
        """The bar, the list, the panel, the picture and the edits ask; the tab answers."""
        self.extraction.extract_requested.connect(self.extract)
        self.extraction.cancel_requested.connect(self.cancel)
        self.extraction.settings_requested.connect(self.edits.open_settings)
        self.extraction.ontology_requested.connect(self.edits.open_ontology)
        self.entity_list.chosen.connect(self.show_entity)
        self.entity_list.new_requested.connect(self.edits.new_entity)
        self.picture.navigate.connect(self.show_entity)
        panel, edits = self.panel, self.edits
        panel.navigate.connect(self.show_entity)
        panel.edit_requested.connect(edits.edit_entity)
        panel.merge_requested.connect(edits.merge)
        panel.delete_requested.connect(edits.delete_entity)
        panel.relation_new_requested.connect(edits.new_relation)
        panel.relation_retype_requested.connect(
            lambda: edits.retype_relation(panel.current_relation())
        )
        panel.relation_delete_requested.connect(
            lambda: edits.delete_relation(panel.current_relation())
        )
        panel.view_chunk_requested.connect(self.view_chunk)
        edits.notice.connect(self.notice.emit)
        edits.opened.connect(self._opened)
        edits.changed.connect(self.refresh)
        edits.show_entity.connect(self.show_entity)
        edits.info_saved.connect(self._info_saved)
        edits.entity_deleted.connect(lambda: self._show_detail(None))

    def _opened(self, dialog: QtWidgets.QDialog) -> None:
        self.dialog = dialog

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self.picture_hint.setVisible(self.height() >= 560)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.Resize and watched in (
            self.entity_list.list_view,
            self.panel.relation_view,
            self.sides,
        ):
            QtCore.QTimer.singleShot(0, self._fit_narrow)
        return super().eventFilter(watched, event)

    def _fit_narrow(self) -> None:
        """At 800 px the list and the panel are narrow: the columns a name needs room from go
        (the type and the source stay in the tooltips and in the panel), the action buttons
        take two columns."""
        self.entity_list.fit()
        self.panel.fit(3 if self.sides.width() >= 440 else 2)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        if not self.property("sized"):
            # the list gets two fifths of the room the first time the tab is laid out
            self.setProperty("sized", True)
            QtCore.QTimer.singleShot(0, self._size_sides)

    def _size_sides(self) -> None:
        width = self.splitter.width()
        self.splitter.setSizes([width * 2 // 5, width - width * 2 // 5])

    # -- loading -------------------------------------------------------------------------
    def take_over(self, old: GraphTab) -> None:
        """The tab a language switch replaces hands over its search, the entity it showed (both
        were lost at a switch) and the side shown, details or picture (it went back to the
        details; helpers' tries)."""
        handed = (old.entity_list.search.text(), old.state.shown_id)
        self._handed = handed if any(handed) else None
        self.sides.setCurrentIndex(old.sides.currentIndex())

    def show_library(self, library_id: str | None) -> None:
        changed = library_id != self.state.library_id
        self.state.library_id = library_id
        if changed:
            self.state.forget()
            self.entity_list.clear()
            self._show_detail(None)
        self.refresh()
        if self._handed is not None and library_id is not None:
            search, entity_id = self._handed
            self._handed = None
            self.entity_list.search.setText(search)  # its list follows, as when typed
            if entity_id is not None:
                self.show_entity(entity_id)

    def refresh(self) -> None:
        """Ask for the library's graph, the graph channel's weight and its graph task."""
        if self.state.library_id is None:
            return
        library_id = self.state.library_id
        self.link.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id), self._got_info)

        def got_settings(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and result.library_id == self.state.library_id:
                self.state.weight = result.retrieval.graph_weight
                self._update_state()

        self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), got_settings)

        def got_tasks(result: t.TaskListResponse | None, error: KbError | None) -> None:
            if result is None or library_id != self.state.library_id:
                return
            self.state.task = next((x for x in result.tasks if x.kind == "graph"), None)
            self._update_state()

        self.link.call(TASKS_LIST, t.TaskListRequest(library_id=library_id), got_tasks)

    def _got_info(self, result: g.GraphInfo | None, error: KbError | None) -> None:
        if result is None or result.library_id != self.state.library_id:
            return
        info = self.state.info
        first = info is None or info.ontology != result.ontology
        self.state.info = result
        if first:
            self._fill_types()
        self._update_state()
        self.entity_list.load()
        if self.state.detail is not None:
            self.show_entity(self._wanted or self.state.detail.entity.id)

    def _info_saved(self, info: g.GraphInfo) -> None:
        self.state.info = info
        self._fill_types()
        self._update_state()

    def _fill_types(self) -> None:
        """The type filter and the picture's legend follow the ontology."""
        ontology = self.state.ontology
        self.entity_list.fill_types(ontology)
        legend = []
        for i, et in enumerate(ontology.entity_types if ontology else []):
            name = entity_type_name(ontology, et.key)
            # one entry never breaks across lines (Chinese names would break anywhere)
            legend.append(
                f"<span style='white-space:nowrap'><span style='color:{graph_colour(i)}'>●"
                f"</span>&nbsp;{name}</span>"
            )
        self.legend.setText(" &nbsp; ".join(legend))

    def show_entity(self, entity_id: str) -> None:
        """Show ``entity_id`` in the panel and the picture (only the latest one asked for)."""
        if self.state.library_id is None:
            return
        library_id = self.state.library_id
        self._wanted = entity_id

        listed = next((e.name for e in self.entity_list.entities.rows if e.id == entity_id), None)
        shown = self.state.detail
        name = shown.entity.name if shown is not None and shown.entity.id == entity_id else listed

        def got(result: g.EntityDetail | None, error: KbError | None) -> None:
            if library_id != self.state.library_id:
                return
            if error is not None:
                # an entity listed a moment ago that an extraction merged or dropped since: the
                # panel says so and the list is read again (it went blank without a word)
                gone = error.code == ErrorCode.NOT_FOUND
                self.state.gone = (name or "") if gone else None
                self._show_detail(None)
                if gone:
                    self.entity_list.load()
                return
            self.state.gone = None
            self._show_detail(result)
            if result is None:
                return
            self.link.call(
                GRAPH_NEIGHBOURHOOD,
                g.NeighbourhoodRequest(library_id=library_id, entity_id=entity_id),
                lambda picture, _e: self._show_picture(picture, entity_id),
            )

        self.link.call(
            GRAPH_ENTITY,
            g.EntityGetRequest(library_id=library_id, entity_id=entity_id),
            self._entities.latest(got),
        )

    def _show_picture(self, picture: g.NeighbourhoodResponse | None, entity_id: str) -> None:
        if picture is None or self.state.shown_id != entity_id:
            return
        ontology = self.state.ontology
        keys = [et.key for et in ontology.entity_types] if ontology else []
        self.picture.show_neighbourhood(
            picture,
            lambda key: keys.index(key) if key in keys else len(keys),
            lambda key: entity_type_name(ontology, key),
            lambda key: relation_type_name(ontology, key),
        )
        if picture.truncated:
            self.notice.emit(tr("graph.picture.truncated", count=len(picture.nodes)))
        self.entity_shown.emit(entity_id)

    def _show_detail(self, detail: g.EntityDetail | None) -> None:
        self.state.detail = detail
        self.right.setCurrentWidget(self.sides if detail else self.empty)
        self.empty.setText(empty_text(self.state.info, self.state.gone))
        self.panel.show_detail(detail)
        if detail is not None:
            # the list follows a navigation from the picture or a relation
            self.entity_list.follow(detail.entity.id)
        self.panel.update_buttons()

    # -- state ---------------------------------------------------------------------------
    def _update_state(self) -> None:
        self.extraction.show_state()
        self.empty.setText(empty_text(self.state.info, self.state.gone))
        self.entity_list.set_editable(self.state.info is not None)
        self.panel.update_buttons()

    def _on_changed(self, params: dict[str, Any]) -> None:
        library_id = self.state.library_id
        if library_id and library_id in params.get("libraryIds", []):
            self._refresh_timer.start()

    def _on_task(self, params: dict[str, Any]) -> None:
        info = t.TaskInfo.model_validate(params)
        if info.kind != "graph" or info.library_id != self.state.library_id:
            return
        self.state.task = info
        self._update_state()
        if info.state in t.FINISHED_STATES:
            self._refresh_timer.start()

    # -- extraction ----------------------------------------------------------------------
    def extract(self) -> None:
        if self.state.library_id is None:
            return

        def done(result: g.GraphExtractResponse | None, error: KbError | None) -> None:
            if error is not None:
                self.notice.emit(tr("error.generic", message=say_error(error)))
            else:
                self.notice.emit(tr("graph.extract.started"))
                if result is not None:  # and, once it ends, how
                    announce_end(self.link, result.task_id, self.notice.emit)
            self.refresh()

        self.extraction.extract_button.setEnabled(False)
        request = g.GraphExtractRequest(library_id=self.state.library_id)
        self.link.call(GRAPH_EXTRACT, request, done)

    def cancel(self) -> None:
        if self.state.task is not None:
            self.link.call(
                TASKS_CANCEL,
                t.TaskCancelRequest(task_id=self.state.task.id),
                lambda _r, _e: self.refresh(),
            )

    # -- evidence ------------------------------------------------------------------------
    def view_chunk(self) -> None:
        """The chunk that carries the chosen evidence, found by its mention and selected."""
        span = self.panel.current_span()
        if self.state.library_id is None or span is None:
            return
        dialog = ChunksDialog(
            self.link, self.state.library_id, span.document_id, span.document_path, self
        )
        dialog.notice.connect(self.notice.emit)
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        self.chunks_dialog = dialog
        dialog.open()
        dialog.search.blockSignals(True)
        dialog.search.setText(span.text)
        dialog.search.blockSignals(False)
        dialog.reload(reset=True, select=span.chunk_id)
