"""The Knowledge graph tab: the extraction's state (strategy, counts, "needs re-extraction",
estimated model calls, progress, start and cancel), a searchable, type-filtered, paged entity
list, the selected entity's panel (names, aliases, type, locked fields, relations, evidence with
"view chunk") and the picture of its neighbourhood, with edit actions whose pickers are limited
to the library's ontology, the ontology editor and the graph settings."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    GRAPH_ENTITIES,
    GRAPH_ENTITY,
    GRAPH_ENTITY_CREATE,
    GRAPH_ENTITY_DELETE,
    GRAPH_ENTITY_MERGE,
    GRAPH_ENTITY_UPDATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_NEIGHBOURHOOD,
    GRAPH_RELATION_CREATE,
    GRAPH_RELATION_DELETE,
    GRAPH_RELATION_UPDATE,
    GRAPH_UPDATE,
    SETTINGS_GET,
    SETTINGS_UPDATE,
    TASKS_CANCEL,
    TASKS_LIST,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chunks.dialog import ChunksDialog
from goodbuddy_kb.ui.graph.dialogs import (
    FormDialog,
    GraphSettingsDialog,
    entity_dialog,
    entity_type_name,
    merge_dialog,
    relation_dialog,
    relation_type_name,
)
from goodbuddy_kb.ui.graph.ontology import OntologyDialog
from goodbuddy_kb.ui.graph.picture import NeighbourhoodView
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_field
from goodbuddy_kb.ui.library.dialogs import confirm_action
from goodbuddy_kb.ui.tasks.progress import progress
from goodbuddy_kb.ui.widgets.table_model import Column, ColumnFitter, RowsModel
from goodbuddy_kb.ui.widgets.theme import graph_colour

PAGE = 100
#: The mark of what a person edited (a glyph every bundled font has).
LOCK = "✎"


class GraphTab(QtWidgets.QWidget):
    notice = QtCore.Signal(str)
    #: The entity panel and the picture show an entity (tests wait on it).
    entity_shown = QtCore.Signal(str)
    #: An entity page arrived.
    listed = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.library_id: str | None = None
        self.info: g.GraphInfo | None = None
        self.weight: float | None = None
        self.task: t.TaskInfo | None = None
        self.detail: g.EntityDetail | None = None
        self.offset = 0
        self.total = 0
        self.dialog: QtWidgets.QDialog | None = None
        self.chunks_dialog: ChunksDialog | None = None
        self._ticket = 0
        #: The entity last asked for: only its answer is shown (a background refresh that
        #: asked earlier never pulls the panel back to the entity the person left).
        self._wanted: str | None = None
        self._entity_ticket = 0
        self._build()
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

    # -- layout --------------------------------------------------------------------------
    def _button(self, key: str, slot: Any) -> QtWidgets.QPushButton:
        button = QtWidgets.QPushButton(tr(key))
        button.setAccessibleName(tr(key))
        button.clicked.connect(slot)
        return button

    def _build(self) -> None:
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
        self.extract_button = self._button("graph.extract", self.extract)
        self.cancel_button = self._button("task.cancel", self.cancel)
        self.settings_button = self._button("graph.settings", self.open_settings)
        self.ontology_button = self._button("graph.ontology", self.open_ontology)
        top = QtWidgets.QGridLayout()
        top.addWidget(self.status, 0, 0, 1, 5)
        top.addWidget(self.bar, 1, 0)
        top.addWidget(self.extract_button, 1, 1)
        top.addWidget(self.cancel_button, 1, 2)
        top.addWidget(self.settings_button, 1, 3)
        top.addWidget(self.ontology_button, 1, 4)
        top.setColumnStretch(0, 1)

        # left: the entity list
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText(tr("graph.search.placeholder"))
        self.search.setAccessibleName(tr("graph.search"))
        self.search.setClearButtonEnabled(True)
        self.type_filter = QtWidgets.QComboBox()
        self.type_filter.setAccessibleName(tr("graph.type_filter"))
        self._search_timer = QtCore.QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(lambda: self.load_entities(reset=True))
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.type_filter.currentIndexChanged.connect(lambda _i: self.load_entities(reset=True))
        self.entities: RowsModel[g.Entity] = RowsModel(
            [
                Column("graph.col.name", lambda e: e.name, self._entity_tip),
                Column("graph.col.type", lambda e: entity_type_name(self._ontology(), e.type_key)),
                Column("graph.col.mentions", lambda e: str(e.mentions)),
                Column("graph.col.lock", self._lock_mark, self._lock_tip),
            ],
            self,
        )
        self.list_view = QtWidgets.QTableView()
        self.list_view.setModel(self.entities)
        self.list_view.setAccessibleName(tr("graph.entities"))
        self.list_view.setSelectionBehavior(
            QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows
        )
        self.list_view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.list_view.setTabKeyNavigation(False)
        self.list_view.verticalHeader().hide()
        self.list_view.setWordWrap(False)
        # The name keeps the room; a long type elides (its whole name in the tooltip).
        self.list_fitter = ColumnFitter(self.list_view, stretch=0, minimum={0: 72})
        self.list_view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_view.selectionModel().currentRowChanged.connect(lambda *_: self._on_row())
        self.prev_button = self._button("graph.prev", lambda: self._page(-1))
        self.next_button = self._button("graph.next", lambda: self._page(1))
        self.page_label = QtWidgets.QLabel()
        self.page_label.setObjectName("muted")
        self.new_button = self._button("graph.new_entity", self.new_entity)
        paging = QtWidgets.QHBoxLayout()
        paging.addWidget(self.prev_button)
        paging.addWidget(self.page_label, 1, QtCore.Qt.AlignmentFlag.AlignCenter)
        paging.addWidget(self.next_button)
        left = QtWidgets.QWidget()
        left_layout = QtWidgets.QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.search)
        left_layout.addWidget(self.type_filter)
        left_layout.addWidget(self.list_view, 1)
        left_layout.addLayout(paging)
        left_layout.addWidget(self.new_button)

        # right: the entity panel and the picture
        self.panel = self._build_panel()
        # The panel's own width decides its button rows (the tab's may not have settled yet).
        self.panel.viewport().installEventFilter(self)
        self.picture = NeighbourhoodView()
        self.picture.navigate.connect(self.show_entity)
        self.legend = QtWidgets.QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(QtCore.Qt.TextFormat.RichText)
        hint = QtWidgets.QLabel(tr("graph.picture.hint"))
        hint.setObjectName("muted")
        hint.setWordWrap(True)
        # on a short window the picture needs the room: the hint moves to the tooltip
        self.picture_hint = hint
        self.picture.setToolTip(tr("graph.picture.hint"))
        picture_page = QtWidgets.QWidget()
        picture_layout = QtWidgets.QVBoxLayout(picture_page)
        picture_layout.setContentsMargins(0, 0, 0, 0)
        picture_layout.addWidget(self.legend)
        picture_layout.addWidget(self.picture, 1)
        picture_layout.addWidget(hint)
        self.splitter: QtWidgets.QSplitter | None = None
        self.sides = QtWidgets.QTabWidget()
        self.sides.addTab(self.panel, tr("graph.details"))
        self.sides.addTab(picture_page, tr("graph.picture"))
        self.empty = QtWidgets.QLabel(tr("graph.empty"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        right = QtWidgets.QStackedWidget()
        right.addWidget(self.empty)
        right.addWidget(self.sides)
        self.right = right
        splitter = QtWidgets.QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setChildrenCollapsible(False)
        # both sides give up room when the window narrows (the list a third, the panel the rest)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        self.splitter = splitter
        left.setMinimumWidth(200)
        right.setMinimumWidth(260)
        for watched in (self.list_view, self.relation_view, self.sides):
            watched.installEventFilter(self)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.rebuild_notice)
        layout.addWidget(splitter, 1)
        self._update_state()

    def _build_panel(self) -> QtWidgets.QScrollArea:
        self.title = QtWidgets.QLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.facts = QtWidgets.QLabel()
        self.facts.setWordWrap(True)
        self.facts.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.locks = QtWidgets.QLabel()
        self.locks.setWordWrap(True)
        self.locks.setObjectName("muted")
        actions = QtWidgets.QGridLayout()
        self.action_grid = actions
        self._action_columns = 3
        self.action_buttons = [
            self._button("graph.rename", lambda: self.edit_entity("rename")),
            self._button("graph.retype", lambda: self.edit_entity("retype")),
            self._button("graph.aliases", lambda: self.edit_entity("aliases")),
            self._button("graph.merge", self.merge),
            self._button("graph.delete", self.delete_entity),
        ]
        for i, button in enumerate(self.action_buttons):
            actions.addWidget(button, i // 3, i % 3)
        for column in range(3):
            actions.setColumnStretch(column, 1)
        self.relations: RowsModel[g.Relation] = RowsModel(
            [
                Column(
                    "graph.col.relation",
                    self._relation_here,
                    lambda r: (
                        f"{self._relation_text(r)} · {r.confidence:.2f}"
                        f" · {tr(f'graph.extractor.{r.extractor}')}"
                    ),
                ),
                Column("graph.col.confidence", lambda r: f"{r.confidence:.2f}"),
                Column("graph.col.source", lambda r: tr(f"graph.extractor.{r.extractor}")),
                Column(
                    "graph.col.lock",
                    lambda r: LOCK if r.locked else "",
                    lambda r: tr("graph.locked.relation") if r.locked else "",
                ),
            ],
            self,
        )
        self.relation_view = self._table(self.relations, "graph.relations")
        self.relation_view.doubleClicked.connect(lambda index: self._relation_open(index.row()))
        self.relation_view.selectionModel().currentRowChanged.connect(
            lambda *_: self._update_buttons()
        )
        # a grid, not a row: at 800 px the three buttons take two lines instead of widening
        # the whole panel past its edge
        relation_buttons = QtWidgets.QGridLayout()
        self.relation_grid = relation_buttons
        self.relation_new = self._button("graph.relation.new", self.new_relation)
        self.relation_retype = self._button("graph.relation.retype", self.retype_relation)
        self.relation_delete = self._button("graph.relation.delete", self.delete_relation)
        self.relation_buttons = [self.relation_new, self.relation_retype, self.relation_delete]
        for i, button in enumerate(self.relation_buttons):
            relation_buttons.addWidget(button, 0, i)
        relation_buttons.setColumnStretch(3, 1)
        self.evidence: RowsModel[g.EvidenceSpan] = RowsModel(
            [
                Column("graph.col.document", lambda v: v.document_path, lambda v: v.document_path),
                Column(
                    "graph.col.evidence", lambda v: " ".join(v.context.split()), lambda v: v.context
                ),
                Column("graph.col.source", lambda v: tr(f"graph.extractor.{v.extractor}")),
            ],
            self,
        )
        self.evidence_view = self._table(self.evidence, "graph.evidence")
        self.evidence_view.doubleClicked.connect(lambda _i: self.view_chunk())
        self.view_chunk_button = self._button("graph.view_chunk", self.view_chunk)
        body = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(body)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addWidget(self.locks)
        layout.addLayout(actions)
        layout.addWidget(QtWidgets.QLabel(f"<b>{tr('graph.relations')}</b>"))
        layout.addWidget(self.relation_view, 1)
        layout.addLayout(relation_buttons)
        layout.addWidget(QtWidgets.QLabel(f"<b>{tr('graph.evidence')}</b>"))
        layout.addWidget(self.evidence_view, 1)
        row = QtWidgets.QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.view_chunk_button)
        layout.addLayout(row)
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        body.setMinimumHeight(420)
        return scroll

    def _table(self, model: RowsModel[Any], key: str) -> QtWidgets.QTableView:
        view = QtWidgets.QTableView()
        view.setModel(model)
        view.setAccessibleName(tr(key))
        view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        view.setTabKeyNavigation(False)
        view.verticalHeader().hide()
        view.setWordWrap(False)
        view.setMinimumHeight(110)
        ColumnFitter(view, stretch=0 if model is self.relations else 1)  # owned by the view
        return view

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.picture_hint.setVisible(self.height() >= 560)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.Resize and watched in (
            self.list_view,
            self.relation_view,
            self.sides,
        ):
            QtCore.QTimer.singleShot(0, self._fit_narrow)
        return super().eventFilter(watched, event)

    def _fit_narrow(self) -> None:
        """At 800 px the list and the panel are narrow: the columns a name needs room from go
        (the type and the source stay in the tooltips and in the panel), the action buttons
        take two columns."""
        narrow = self.list_view.width() < 340
        self.list_view.setColumnHidden(1, narrow)
        if not narrow:  # the type as wide as it reads, up to a third of the list
            wanted = self.list_view.sizeHintForColumn(1) + 8
            self.list_view.horizontalHeader().resizeSection(
                1, max(80, min(wanted, self.list_view.width() // 3))
            )
        self.relation_view.setColumnHidden(2, self.relation_view.width() < 440)
        columns = 3 if self.sides.width() >= 440 else 2
        if columns != self._action_columns:
            self._action_columns = columns
            for grid, buttons in (
                (self.action_grid, self.action_buttons),
                (self.relation_grid, self.relation_buttons),
            ):
                for button in buttons:
                    grid.removeWidget(button)
                for i, button in enumerate(buttons):
                    grid.addWidget(button, i // columns, i % columns)
            for column in range(3):
                self.action_grid.setColumnStretch(column, 1 if column < columns else 0)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.splitter is not None and not self.property("sized"):
            # the list gets two fifths of the room the first time the tab is laid out
            self.setProperty("sized", True)
            QtCore.QTimer.singleShot(0, self._size_sides)

    def _size_sides(self) -> None:
        if self.splitter is not None:
            width = self.splitter.width()
            self.splitter.setSizes([width * 2 // 5, width - width * 2 // 5])

    # -- texts ---------------------------------------------------------------------------
    def _ontology(self) -> g.Ontology | None:
        return self.info.ontology if self.info else None

    @staticmethod
    def _lock_mark(e: g.Entity) -> str:
        return LOCK if e.locked_fields or e.created_by == "manual" else ""

    def _lock_tip(self, e: g.Entity) -> str:
        return self._locked_text(e) if self._lock_mark(e) else ""

    def _locked_text(self, e: g.Entity) -> str:
        fields = [tr(f"graph.field.locked.{f}") for f in e.locked_fields]
        if fields:
            return f"{LOCK} {tr('graph.locked', fields=tr('graph.sep').join(fields))}"
        return f"{LOCK} {tr('graph.locked.manual')}" if e.created_by == "manual" else ""

    def _entity_tip(self, e: g.Entity) -> str:
        tip = f"{e.name} · {entity_type_name(self._ontology(), e.type_key)}"
        return tip + (f"\n{', '.join(e.aliases)}" if e.aliases else "")

    def _relation_text(self, r: g.Relation) -> str:
        return f"{r.head_name} —{relation_type_name(self._ontology(), r.type_key)}→ {r.tail_name}"

    def _relation_here(self, r: g.Relation) -> str:
        """A relation in the panel of one of its ends: the other end is what is new there
        ("—owns→ 费用报销系统", "财务共享中心 —owns→"), the full text is in the tooltip."""
        name = relation_type_name(self._ontology(), r.type_key)
        shown = self.detail.entity.id if self.detail is not None else None
        if shown == r.head_id and shown != r.tail_id:
            return f"—{name}→ {r.tail_name}"
        if shown == r.tail_id and shown != r.head_id:
            return f"{r.head_name} —{name}→"
        return self._relation_text(r)

    # -- loading -------------------------------------------------------------------------
    def show_library(self, library_id: str | None) -> None:
        changed = library_id != self.library_id
        self.library_id = library_id
        if changed:
            self.info, self.detail, self.task, self.offset = None, None, None, 0
            self.search.blockSignals(True)
            self.search.clear()
            self.search.blockSignals(False)
            self.entities.set_rows([])
            self._show_detail(None)
        self.refresh()

    def refresh(self) -> None:
        if self.library_id is None:
            return
        library_id = self.library_id

        def got_info(result: g.GraphInfo | None, error: KbError | None) -> None:
            if result is None or result.library_id != self.library_id:
                return
            first = self.info is None or self.info.ontology != result.ontology
            self.info = result
            if first:
                self._fill_types()
            self._update_state()
            self.load_entities()
            if self.detail is not None:
                self.show_entity(self._wanted or self.detail.entity.id)

        self.link.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id), got_info)

        def got_settings(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and result.library_id == self.library_id:
                self.weight = result.retrieval.graph_weight
                self._update_state()

        self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), got_settings)

        def got_tasks(result: t.TaskListResponse | None, error: KbError | None) -> None:
            if result is None or library_id != self.library_id:
                return
            self.task = next((x for x in result.tasks if x.kind == "graph"), None)
            self._update_state()

        self.link.call(TASKS_LIST, t.TaskListRequest(library_id=library_id), got_tasks)

    def _fill_types(self) -> None:
        current = self.type_filter.currentData()
        self.type_filter.blockSignals(True)
        self.type_filter.clear()
        self.type_filter.addItem(tr("graph.all_types"), None)
        legend = []
        for i, et in enumerate(self.info.ontology.entity_types if self.info else []):
            name = entity_type_name(self._ontology(), et.key)
            self.type_filter.addItem(name, et.key)
            # one entry never breaks across lines (Chinese names would break anywhere)
            legend.append(
                f"<span style='white-space:nowrap'><span style='color:{graph_colour(i)}'>●"
                f"</span>&nbsp;{name}</span>"
            )
        self.type_filter.setCurrentIndex(max(0, self.type_filter.findData(current)))
        self.type_filter.blockSignals(False)
        self.legend.setText(" &nbsp; ".join(legend))

    def load_entities(self, reset: bool = False) -> None:
        if self.library_id is None:
            return
        if reset:
            self.offset = 0
        self._ticket += 1
        ticket = self._ticket
        request = g.EntitiesListRequest(
            library_id=self.library_id,
            search=self.search.text().strip() or None,
            type_key=self.type_filter.currentData(),
            offset=self.offset,
            limit=PAGE,
        )

        def done(result: g.EntitiesListResponse | None, error: KbError | None) -> None:
            if ticket != self._ticket or result is None:
                return
            selected = self.detail.entity.id if self.detail else None
            self.total = result.total
            self.entities.set_rows(result.entities)
            row = next((i for i, e in enumerate(result.entities) if e.id == selected), -1)
            if row >= 0:
                self.list_view.selectionModel().blockSignals(True)
                self.list_view.selectRow(row)
                self.list_view.selectionModel().blockSignals(False)
            end = min(self.total, self.offset + len(result.entities))
            self.page_label.setText(
                tr("graph.page", start=self.offset + 1 if end else 0, end=end, total=self.total)
            )
            self.prev_button.setEnabled(self.offset > 0)
            self.next_button.setEnabled(end < self.total)
            self.listed.emit()

        self.link.call(GRAPH_ENTITIES, request, done)

    def _page(self, step: int) -> None:
        self.offset = max(0, self.offset + step * PAGE)
        self.load_entities()

    def _on_row(self) -> None:
        index = self.list_view.currentIndex()
        entity = self.entities.row_at(index.row()) if index.isValid() else None
        if entity is not None and (self.detail is None or self.detail.entity.id != entity.id):
            self.show_entity(entity.id)

    def show_entity(self, entity_id: str) -> None:
        if self.library_id is None:
            return
        library_id = self.library_id
        self._entity_ticket += 1
        ticket, self._wanted = self._entity_ticket, entity_id

        def got(result: g.EntityDetail | None, error: KbError | None) -> None:
            if library_id != self.library_id or ticket != self._entity_ticket:
                return
            if error is not None:
                self._show_detail(None)
                return
            self._show_detail(result)
            if result is None:
                return
            self.link.call(
                GRAPH_NEIGHBOURHOOD,
                g.NeighbourhoodRequest(library_id=library_id, entity_id=entity_id),
                lambda picture, _e: self._show_picture(picture, entity_id),
            )

        self.link.call(
            GRAPH_ENTITY, g.EntityGetRequest(library_id=library_id, entity_id=entity_id), got
        )

    def _show_picture(self, picture: g.NeighbourhoodResponse | None, entity_id: str) -> None:
        if picture is None or self.detail is None or self.detail.entity.id != entity_id:
            return
        ontology = self._ontology()
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
        self.detail = detail
        self.right.setCurrentWidget(self.sides if detail else self.empty)
        if detail is None:
            self.relations.set_rows([])
            self.evidence.set_rows([])
            self._update_buttons()
            return
        e = detail.entity
        self.title.setText(e.name)
        facts = [
            tr("graph.fact.type", type=entity_type_name(self._ontology(), e.type_key)),
            tr("graph.fact.aliases", aliases=", ".join(e.aliases) if e.aliases else "—"),
            tr("graph.fact.mentions", count=e.mentions),
            tr("graph.fact.made_by", who=tr(f"graph.extractor.{e.created_by}")),
        ]
        if e.description:
            facts.append(e.description)
        self.facts.setText("\n".join(facts))
        self.locks.setText(self._locked_text(e) or tr("graph.unlocked"))
        self.relations.set_rows(detail.relations)
        self.evidence.set_rows(detail.evidence)
        # the list follows a navigation from the picture or a relation
        row = next((i for i, x in enumerate(self.entities.rows) if x.id == e.id), -1)
        selection = self.list_view.selectionModel()
        selection.blockSignals(True)
        if row >= 0:
            self.list_view.selectRow(row)
            self.list_view.scrollTo(self.entities.index(row, 0))
        else:
            self.list_view.clearSelection()
        selection.blockSignals(False)
        self.list_view.viewport().update()
        self._update_buttons()

    # -- state ---------------------------------------------------------------------------
    def _update_state(self) -> None:
        info = self.info
        if info is None:
            self.status.setText(tr("graph.loading") if self.library_id else "")
        else:
            parts = [
                tr(
                    "graph.status",
                    strategy=tr(f"graph.strategy.{info.settings.strategy}"),
                    entities=info.entities,
                    relations=info.relations,
                    evidence=info.evidence,
                )
            ]
            if info.settings.strategy == "off":
                parts.append(tr("graph.off_note"))
            elif self.weight is not None:
                parts.append(tr("graph.weight", weight=f"{self.weight:g}"))
            estimate = getattr(info, "estimated_model_calls", None)
            if estimate is not None and info.settings.strategy == "model":
                parts.append(tr("graph.estimate", count=estimate))
            task = self.task
            if task is not None:
                state = tr(f"task.state.{task.state}")
                line = tr("graph.task", state=state, progress=progress(task))
                error = say_field(task, "error")
                parts.append(f"{line} — {error}" if error else line)
            self.status.setText(
                " · ".join(parts[:1]) + ("\n" + " · ".join(parts[1:]) if parts[1:] else "")
            )
            self.rebuild_notice.setVisible(info.needs_rebuild and info.settings.strategy != "off")
        running = self.task is not None and self.task.state in ("queued", "running")
        self.bar.setVisible(running)
        if running and self.task is not None:
            busy = self.task.total == 0
            self.bar.setMaximum(0 if busy else self.task.total)
            self.bar.setValue(self.task.done)
        on = info is not None and info.settings.strategy != "off"
        self.extract_button.setEnabled(on and not running)
        self.extract_button.setToolTip("" if on else tr("graph.off_note"))
        self.cancel_button.setEnabled(running)
        for button in (self.settings_button, self.ontology_button, self.new_button):
            button.setEnabled(info is not None)
        self._update_buttons()

    def _update_buttons(self) -> None:
        has = self.detail is not None and self.info is not None
        for button in (*self.action_buttons, self.relation_new):
            button.setEnabled(has)
        relation = self._current_relation() is not None
        self.relation_retype.setEnabled(has and relation)
        self.relation_delete.setEnabled(has and relation)
        self.view_chunk_button.setEnabled(has and bool(self.evidence.rows))

    def _on_changed(self, params: dict[str, Any]) -> None:
        if self.library_id and self.library_id in params.get("libraryIds", []):
            self._refresh_timer.start()

    def _on_task(self, params: dict[str, Any]) -> None:
        info = t.TaskInfo.model_validate(params)
        if info.kind != "graph" or info.library_id != self.library_id:
            return
        self.task = info
        self._update_state()
        if info.state in t.FINISHED_STATES:
            self._refresh_timer.start()

    # -- extraction ----------------------------------------------------------------------
    def extract(self) -> None:
        if self.library_id is None:
            return

        def done(result: g.GraphExtractResponse | None, error: KbError | None) -> None:
            if error is not None:
                self.notice.emit(tr("error.generic", message=say_error(error)))
            else:
                self.notice.emit(tr("graph.extract.started"))
            self.refresh()

        self.extract_button.setEnabled(False)
        self.link.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=self.library_id), done)

    def cancel(self) -> None:
        if self.task is not None:
            self.link.call(
                TASKS_CANCEL,
                t.TaskCancelRequest(task_id=self.task.id),
                lambda _r, _e: self.refresh(),
            )

    # -- dialogs -------------------------------------------------------------------------
    def _run(self, dialog: FormDialog, spec: Any, after: Any = None) -> None:
        """Open ``dialog``; its request goes to ``spec``; a refusal stays in the dialog."""
        self.dialog = dialog

        def submit(request: Any) -> None:
            def done(result: Any, error: KbError | None) -> None:
                if error is not None:
                    dialog.show_error(say_error(error))
                    return
                dialog.accept()
                if after is not None:
                    after(result)
                self.refresh()

            self.link.call(spec, request, done)

        dialog.submitted.connect(submit)
        dialog.open()

    def new_entity(self) -> None:
        if self.library_id is None or self.info is None:
            return
        dialog = entity_dialog(self, self.library_id, self.info.ontology, None, "new")
        self._run(dialog, GRAPH_ENTITY_CREATE, lambda r: self.show_entity(r.entity.id))

    def edit_entity(self, mode: str) -> None:
        if self.library_id is None or self.info is None or self.detail is None:
            return
        dialog = entity_dialog(self, self.library_id, self.info.ontology, self.detail.entity, mode)
        self._run(
            dialog,
            GRAPH_ENTITY_UPDATE,
            lambda r: self.notice.emit(tr("graph.saved", name=r.entity.name)),
        )

    def merge(self) -> None:
        if self.library_id is None or self.info is None or self.detail is None:
            return
        dialog = merge_dialog(self, self.library_id, self.info.ontology, self.detail.entity)
        self._wire_picker(dialog.picker)  # type: ignore[attr-defined]
        self._run(
            dialog,
            GRAPH_ENTITY_MERGE,
            lambda r: self.notice.emit(tr("graph.merged", name=r.entity.name)),
        )

    def _wire_picker(self, picker: Any) -> None:
        library_id = self.library_id

        def search(text: str) -> None:
            if library_id is None:
                return
            self.link.call(
                GRAPH_ENTITIES,
                g.EntitiesListRequest(library_id=library_id, search=text or None, limit=200),
                lambda result, _e: picker.respond(result.entities) if result else None,
            )

        picker.search_requested.connect(search)
        search("")

    def delete_entity(self) -> None:
        if self.library_id is None or self.detail is None:
            return
        entity = self.detail.entity
        box = confirm_action(
            self,
            tr("graph.delete.title"),
            tr("graph.delete.text", name=entity.name, count=len(self.detail.relations)),
            tr("graph.delete.confirm", name=entity.name),
        )
        self.dialog = box
        library_id = self.library_id

        def answered() -> None:
            if box.clickedButton() is not box.property("confirmButton"):
                return

            def done(result: g.EntityDeleteResponse | None, error: KbError | None) -> None:
                if error is not None:
                    self.notice.emit(tr("error.generic", message=say_error(error)))
                    return
                self._show_detail(None)
                self.notice.emit(tr("graph.deleted", name=entity.name))
                self.refresh()

            self.link.call(
                GRAPH_ENTITY_DELETE,
                g.EntityDeleteRequest(library_id=library_id, entity_id=entity.id),
                done,
            )

        box.finished.connect(lambda _r: answered())
        box.open()

    def _current_relation(self) -> g.Relation | None:
        index = self.relation_view.currentIndex()
        return self.relations.row_at(index.row()) if index.isValid() else None

    def _relation_open(self, row: int) -> None:
        relation = self.relations.row_at(row)
        if relation is not None and self.detail is not None:
            other = (
                relation.tail_id if relation.head_id == self.detail.entity.id else relation.head_id
            )
            self.show_entity(other)

    def new_relation(self) -> None:
        if self.library_id is None or self.info is None or self.detail is None:
            return
        dialog = relation_dialog(self, self.library_id, self.info.ontology, self.detail.entity)
        self._wire_picker(dialog.picker)  # type: ignore[attr-defined]
        dialog.refill()  # type: ignore[attr-defined]
        self._run(
            dialog,
            GRAPH_RELATION_CREATE,
            lambda r: self.notice.emit(tr("graph.relation.saved", relation=self._relation_text(r))),
        )

    def retype_relation(self) -> None:
        relation = self._current_relation()
        if relation is None or self.library_id is None or self.info is None:
            return
        library_id, ontology = self.library_id, self.info.ontology

        def got(head: g.EntityDetail | None, _e: KbError | None) -> None:
            def got_tail(tail: g.EntityDetail | None, _e2: KbError | None) -> None:
                if head is None or tail is None:
                    return
                dialog = relation_dialog(
                    self,
                    library_id,
                    ontology,
                    head.entity,
                    relation,
                    head.entity.type_key,
                    tail.entity.type_key,
                )
                self._run(dialog, GRAPH_RELATION_UPDATE)

            self.link.call(
                GRAPH_ENTITY,
                g.EntityGetRequest(library_id=library_id, entity_id=relation.tail_id),
                got_tail,
            )

        self.link.call(
            GRAPH_ENTITY, g.EntityGetRequest(library_id=library_id, entity_id=relation.head_id), got
        )

    def delete_relation(self) -> None:
        relation = self._current_relation()
        if relation is None or self.library_id is None:
            return
        text = self._relation_text(relation)
        box = confirm_action(
            self,
            tr("graph.relation.delete"),
            tr("graph.relation.delete.text", relation=text),
            tr("graph.relation.delete"),
        )
        self.dialog = box
        library_id = self.library_id

        def answered() -> None:
            if box.clickedButton() is not box.property("confirmButton"):
                return
            self.link.call(
                GRAPH_RELATION_DELETE,
                g.RelationDeleteRequest(library_id=library_id, relation_id=relation.id),
                lambda _r, error: self.notice.emit(
                    tr("error.generic", message=say_error(error))
                    if error
                    else tr("graph.relation.deleted", relation=text)
                ),
            )

        box.finished.connect(lambda _r: answered())
        box.open()

    def view_chunk(self) -> None:
        if self.library_id is None or not self.evidence.rows:
            return
        index = self.evidence_view.currentIndex()
        span = self.evidence.row_at(index.row()) if index.isValid() else self.evidence.rows[0]
        if span is None:
            return
        dialog = ChunksDialog(
            self.link, self.library_id, span.document_id, span.document_path, self
        )
        dialog.notice.connect(self.notice.emit)
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        self.chunks_dialog = dialog
        dialog.open()
        # the chunk that carries the evidence, found by its mention and selected
        dialog.search.blockSignals(True)
        dialog.search.setText(span.text)
        dialog.search.blockSignals(False)
        dialog.reload(reset=True, select=span.chunk_id)

    def open_ontology(self) -> None:
        if self.info is None or self.library_id is None:
            return
        library_id = self.library_id
        dialog = OntologyDialog(self.info.ontology, self)
        self.dialog = dialog
        dialog.submitted.connect(
            lambda ontology: self.link.call(
                GRAPH_UPDATE,
                g.GraphUpdateRequest(library_id=library_id, ontology=ontology),
                lambda result, error: self._saved(dialog, result, error),
            )
        )
        dialog.open()

    def _saved(self, dialog: FormDialog, result: g.GraphInfo | None, error: KbError | None) -> None:
        if error is not None:
            dialog.show_error(say_error(error))
            return
        dialog.accept()
        if result is not None:
            self.info = result
            self._fill_types()
            self._update_state()
        self.refresh()

    def open_settings(self) -> None:
        if self.info is None or self.library_id is None:
            return
        library_id = self.library_id
        dialog = GraphSettingsDialog(library_id, self.info.settings, self.weight, self)
        self.dialog = dialog

        def submit(request: tuple[g.GraphSettings, float | None]) -> None:
            settings, weight = request

            def saved(result: g.GraphInfo | None, error: KbError | None) -> None:
                if error is not None or weight is None or weight == self.weight:
                    self._saved(dialog, result, error)
                    return

                def got(current: c.LibrarySettings | None, error2: KbError | None) -> None:
                    if current is None:
                        self._saved(dialog, result, error2)
                        return
                    retrieval = current.retrieval.model_copy(update={"graph_weight": weight})
                    self.link.call(
                        SETTINGS_UPDATE,
                        c.SettingsUpdateRequest(library_id=library_id, retrieval=retrieval),
                        lambda _r, error3: self._saved(dialog, result, error3),
                    )

                self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), got)

            self.link.call(
                GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings), saved
            )

        dialog.submitted.connect(submit)
        dialog.open()
