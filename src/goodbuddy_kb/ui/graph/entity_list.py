"""The Knowledge graph tab's entity list: a search field and a type filter over the library's
entities, a page of them at a time (name, type, mentions, the mark of a person's edit) with
previous/next, and the button for a new entity. Choosing a row asks for that entity
(``chosen``); the list follows the entity the panel shows without asking again."""

from __future__ import annotations

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import GRAPH_ENTITIES
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.graph.state import GraphState
from goodbuddy_kb.ui.graph.texts import entity_tip, entity_type_name, lock_mark, lock_tip
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.pager import PagerWidget
from goodbuddy_kb.ui.widgets.table_model import Column, ColumnFitter, RowsModel
from goodbuddy_kb.ui.widgets.ticket import Ticket

PAGE = 100
#: The width the name column keeps before the type column is shown beside it.
NAME_ROOM = 110


class EntityListWidget(QtWidgets.QWidget):
    #: An entity page arrived (tests wait on it).
    listed = QtCore.Signal()
    #: The person chose another entity in the list (its id).
    chosen = QtCore.Signal(str)
    #: The person asked for a new entity.
    new_requested = QtCore.Signal()

    def __init__(
        self, link: BackendLink, state: GraphState, parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.link = link
        self.state = state
        self.offset = 0
        self.total = 0
        #: Only the latest page asked for is shown (a search typed further asks again).
        self._pages = Ticket()
        self._build()

    def _build(self) -> None:
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText(tr("graph.search.placeholder"))
        self.search.setAccessibleName(tr("graph.search"))
        self.search.setClearButtonEnabled(True)
        self.type_filter = QtWidgets.QComboBox()
        self.type_filter.setAccessibleName(tr("graph.type_filter"))
        self._search_timer = QtCore.QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(lambda: self.load(reset=True))
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.type_filter.currentIndexChanged.connect(lambda _i: self.load(reset=True))
        self.entities: RowsModel[g.Entity] = RowsModel(
            [
                Column("graph.col.name", lambda e: e.name, self._entity_tip),
                Column("graph.col.type", self._type_name),
                Column("graph.col.mentions", lambda e: str(e.mentions)),
                Column("graph.col.lock", lock_mark, lock_tip),
            ],
            self,
        )
        self.list_view = self._view()
        self.pager = PagerWidget("graph.prev", "graph.next", label_between=True)
        self.pager.page_label.setObjectName("muted")
        self.pager.step.connect(self._page)
        self.new_button = button("graph.new_entity", self.new_requested.emit)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.search)
        layout.addWidget(self.type_filter)
        layout.addWidget(self.list_view, 1)
        layout.addWidget(self.pager)
        layout.addWidget(self.new_button)

    def _view(self) -> QtWidgets.QTableView:
        view = QtWidgets.QTableView()
        view.setModel(self.entities)
        view.setAccessibleName(tr("graph.entities"))
        view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        view.setTabKeyNavigation(False)
        view.verticalHeader().hide()
        view.setWordWrap(False)
        # The name keeps the room; a long type elides (its whole name in the tooltip).
        self.list_fitter = ColumnFitter(view, stretch=0, minimum={0: 72})
        view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.selectionModel().currentRowChanged.connect(lambda *_: self._on_row())
        return view

    def _type_name(self, e: g.Entity) -> str:
        return entity_type_name(self.state.ontology, e.type_key)

    def _entity_tip(self, e: g.Entity) -> str:
        return entity_tip(self.state.ontology, e)

    def detach(self) -> None:
        """Ask nothing more (the tab is being replaced): a search typed just before a language
        switch asked for its page from the old list, whose answer then reached a deleted
        model."""
        self._search_timer.stop()
        self._pages.drop()
        self.search.blockSignals(True)
        self.type_filter.blockSignals(True)

    # -- the library ---------------------------------------------------------------------
    def clear(self) -> None:
        """Another library: its first page, no search, no rows until they arrive."""
        self.offset = 0
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        self.entities.set_rows([])

    def fill_types(self, ontology: g.Ontology | None) -> None:
        """The type filter offers the ontology's entity types (the choice kept if it stays)."""
        current = self.type_filter.currentData()
        self.type_filter.blockSignals(True)
        self.type_filter.clear()
        self.type_filter.addItem(tr("graph.all_types"), None)
        for et in ontology.entity_types if ontology else []:
            self.type_filter.addItem(entity_type_name(ontology, et.key), et.key)
        self.type_filter.setCurrentIndex(max(0, self.type_filter.findData(current)))
        self.type_filter.blockSignals(False)

    def set_editable(self, editable: bool) -> None:
        self.new_button.setEnabled(editable)

    # -- pages ---------------------------------------------------------------------------
    def load(self, reset: bool = False) -> None:
        """Ask for the current page (the first one with ``reset``); only the latest answer
        is shown."""
        if self.state.library_id is None:
            return
        if reset:
            self.offset = 0
        request = g.EntitiesListRequest(
            library_id=self.state.library_id,
            search=self.search.text().strip() or None,
            type_key=self.type_filter.currentData(),
            offset=self.offset,
            limit=PAGE,
        )

        def done(result: g.EntitiesListResponse | None, error: KbError | None) -> None:
            if result is not None:
                self._show_page(result)

        self.link.call(GRAPH_ENTITIES, request, self._pages.latest(done))

    def _show_page(self, result: g.EntitiesListResponse) -> None:
        selected = self.state.shown_id
        self.total = result.total
        self.entities.set_rows(result.entities)
        self.fit()  # the type's room follows the types listed
        row = next((i for i, e in enumerate(result.entities) if e.id == selected), -1)
        if row >= 0:
            self.list_view.selectionModel().blockSignals(True)
            self.list_view.selectRow(row)
            self.list_view.selectionModel().blockSignals(False)
        end = min(self.total, self.offset + len(result.entities))
        self.pager.show_page(
            tr("graph.page", start=self.offset + 1 if end else 0, end=end, total=self.total),
            has_previous=self.offset > 0,
            has_next=end < self.total,
        )
        self.listed.emit()

    def _page(self, step: int) -> None:
        self.offset = max(0, self.offset + step * PAGE)
        self.load()

    def _on_row(self) -> None:
        index = self.list_view.currentIndex()
        entity = self.entities.row_at(index.row()) if index.isValid() else None
        if entity is not None and self.state.shown_id != entity.id:
            self.chosen.emit(entity.id)

    def follow(self, entity_id: str | None) -> None:
        """Select ``entity_id``'s row if it is on this page (after a navigation from the
        picture or a relation), without asking for it again."""
        row = next((i for i, x in enumerate(self.entities.rows) if x.id == entity_id), -1)
        selection = self.list_view.selectionModel()
        selection.blockSignals(True)
        if row >= 0:
            self.list_view.selectRow(row)
            self.list_view.scrollTo(self.entities.index(row, 0))
        else:
            self.list_view.clearSelection()
        selection.blockSignals(False)
        self.list_view.viewport().update()

    def fit(self) -> None:
        """A list too narrow for the name's room beside whole types, mentions and marks hides
        the type (it stays in the tooltip and the panel); a wider one shows it, and the column
        fitter shares the width (sized here on its own, the type pushed Mentions past the
        list's edge). The room follows what the columns hold: Chinese types ("组织") are
        shown in a list where English ones ("Organisation") would be cut."""
        self.list_view.setColumnHidden(1, self.list_view.width() < self.type_room())
        self.list_fitter.fit()

    def type_room(self) -> int:
        """The least list width that shows the type: the name's room, then the type, mentions
        and mark columns as wide as their widest cell or header reads."""
        view, header = self.list_view, self.list_view.horizontalHeader()
        columns = sum(max(view.sizeHintForColumn(c), header.sectionSizeHint(c)) for c in (1, 2, 3))
        return NAME_ROOM + columns + view.frameWidth() * 2
