"""The Knowledge graph tab's entity panel: the selected entity's name and facts, which of its
fields a person locked, the buttons that edit it, its relations (the other end first; opening
one goes there) with their buttons, and its evidence with "view chunk" — the entity's mentions,
or with a relation selected, the sentences that state that relation. The panel only shows and
asks: each button is a signal the tab routes to its edit actions."""

from __future__ import annotations

import html

from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.graph.state import GraphState
from goodbuddy_kb.ui.graph.texts import (
    LOCK,
    entity_type_name,
    locked_text,
    relation_here,
    relation_text,
)
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.locator import path_text
from goodbuddy_kb.ui.widgets.table_model import Column, ColumnFitter, Row, RowsModel


class EntityPanel(QtWidgets.QScrollArea):
    #: Rename, retype or aliases (the mode) of the shown entity.
    edit_requested = QtCore.Signal(str)
    merge_requested = QtCore.Signal()
    delete_requested = QtCore.Signal()
    relation_new_requested = QtCore.Signal()
    relation_retype_requested = QtCore.Signal()
    relation_delete_requested = QtCore.Signal()
    #: A relation was opened: show its other end (the entity id).
    navigate = QtCore.Signal(str)
    view_chunk_requested = QtCore.Signal()

    def __init__(self, state: GraphState, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self._action_columns = 3
        body = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(body)
        self._build_head(layout)
        self._build_relations(layout)
        self._build_evidence(layout)
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setWidget(body)
        body.setMinimumHeight(420)

    def _build_head(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.title = QtWidgets.QLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.title.setObjectName("data")  # the entity's name, the documents' own words
        self.facts = QtWidgets.QLabel()
        self.facts.setWordWrap(True)
        self.facts.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.locks = QtWidgets.QLabel()
        self.locks.setWordWrap(True)
        self.locks.setObjectName("muted")
        actions = QtWidgets.QGridLayout()
        self.action_grid = actions
        self.action_buttons = [
            button("graph.rename", lambda: self.edit_requested.emit("rename")),
            button("graph.retype", lambda: self.edit_requested.emit("retype")),
            button("graph.aliases", lambda: self.edit_requested.emit("aliases")),
            button("graph.merge", self.merge_requested.emit),
            button("graph.delete", self.delete_requested.emit),
        ]
        for i, pushed in enumerate(self.action_buttons):
            actions.addWidget(pushed, i // 3, i % 3)
        for column in range(3):
            actions.setColumnStretch(column, 1)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addWidget(self.locks)
        layout.addLayout(actions)

    def _build_relations(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.relations: RowsModel[g.Relation] = RowsModel(
            [
                Column("graph.col.relation", self._relation_here, self._relation_tip),
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
        self.relation_view = self._table(self.relations, "graph.relations", stretch=0)
        self.relation_view.doubleClicked.connect(lambda index: self._relation_open(index.row()))
        self.relation_view.selectionModel().currentRowChanged.connect(
            lambda *_: self._relation_chosen()
        )
        # a grid, not a row: at 800 px the three buttons take two lines instead of widening
        # the whole panel past its edge
        relation_buttons = QtWidgets.QGridLayout()
        self.relation_grid = relation_buttons
        self.relation_new = button("graph.relation.new", self.relation_new_requested.emit)
        self.relation_retype = button("graph.relation.retype", self.relation_retype_requested.emit)
        self.relation_delete = button("graph.relation.delete", self.relation_delete_requested.emit)
        self.relation_buttons = [self.relation_new, self.relation_retype, self.relation_delete]
        for i, pushed in enumerate(self.relation_buttons):
            relation_buttons.addWidget(pushed, 0, i)
        relation_buttons.setColumnStretch(3, 1)
        layout.addWidget(QtWidgets.QLabel(f"<b>{tr('graph.relations')}</b>"))
        layout.addWidget(self.relation_view, 1)
        layout.addLayout(relation_buttons)

    def _build_evidence(self, layout: QtWidgets.QVBoxLayout) -> None:
        self.evidence: RowsModel[g.EvidenceSpan] = RowsModel(
            [
                Column(
                    "graph.col.document",
                    lambda v: path_text(v.document_path),
                    lambda v: path_text(v.document_path),
                ),
                Column(
                    "graph.col.evidence", lambda v: " ".join(v.context.split()), lambda v: v.context
                ),
                Column("graph.col.source", lambda v: tr(f"graph.extractor.{v.extractor}")),
            ],
            self,
        )
        self.evidence_view = self._table(self.evidence, "graph.evidence", stretch=1)
        self.evidence_view.doubleClicked.connect(lambda _i: self.view_chunk_requested.emit())
        self.view_chunk_button = button("graph.view_chunk", self.view_chunk_requested.emit)
        self.evidence_label = QtWidgets.QLabel(f"<b>{tr('graph.evidence')}</b>")
        self.evidence_label.setWordWrap(True)
        layout.addWidget(self.evidence_label)
        layout.addWidget(self.evidence_view, 1)
        row = QtWidgets.QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.view_chunk_button)
        layout.addLayout(row)

    def _table(self, model: RowsModel[Row], key: str, stretch: int) -> QtWidgets.QTableView:
        view = QtWidgets.QTableView()
        view.setModel(model)
        view.setAccessibleName(tr(key))
        view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        view.setTabKeyNavigation(False)
        view.verticalHeader().hide()
        view.setWordWrap(False)
        view.setMinimumHeight(110)
        ColumnFitter(view, stretch=stretch)  # owned by the view
        return view

    # -- texts ---------------------------------------------------------------------------
    def _relation_here(self, r: g.Relation) -> str:
        return relation_here(self.state.ontology, r, self.state.shown_id)

    def _relation_tip(self, r: g.Relation) -> str:
        return (
            f"{relation_text(self.state.ontology, r)} · {r.confidence:.2f}"
            f" · {tr(f'graph.extractor.{r.extractor}')}"
        )

    # -- showing -------------------------------------------------------------------------
    def show_detail(self, detail: g.EntityDetail | None) -> None:
        """The entity's facts, locks, relations and evidence (none: the tables empty)."""
        if detail is None:
            self.relations.set_rows([])
            self.evidence.set_rows([])
            return
        e = detail.entity
        self.title.setText(e.name)
        facts = [
            tr("graph.fact.type", type=entity_type_name(self.state.ontology, e.type_key)),
            tr("graph.fact.aliases", aliases=", ".join(e.aliases) if e.aliases else "—"),
            tr("graph.fact.mentions", count=e.mentions),
            tr("graph.fact.made_by", who=tr(f"graph.extractor.{e.created_by}")),
        ]
        if e.description:
            facts.append(e.description)
        self.facts.setText("\n".join(facts))
        self.locks.setText(locked_text(e) or tr("graph.unlocked"))
        self.relations.set_rows(detail.relations)
        self.show_evidence()

    def show_evidence(self) -> None:
        """The selected relation's evidence — where the text states it — else the entity's
        mentions (selecting a relation left the mentions shown: nothing said where a relation
        came from, e.g. which sentence made IT服务台 responsible for VPN)."""
        detail = self.state.detail
        relation = self.current_relation()
        if detail is None or relation is None:
            self.evidence_label.setText(f"<b>{tr('graph.evidence')}</b>")
            self.evidence.set_rows(detail.evidence if detail is not None else [])
            return
        spans = next(
            (x.spans for x in detail.relation_evidence if x.relation_id == relation.id), []
        )
        said = html.escape(relation_text(self.state.ontology, relation))
        made = relation.extractor == "manual" and not spans
        key = "graph.evidence.relation_none" if made else "graph.evidence.relation"
        self.evidence_label.setText(f"<b>{tr(key, relation=said)}</b>")
        self.evidence.set_rows(spans)

    def _relation_chosen(self) -> None:
        self.show_evidence()
        self.update_buttons()

    def update_buttons(self) -> None:
        """Edits need an entity and the library's graph; a relation's need a relation."""
        has = self.state.detail is not None and self.state.info is not None
        for pushed in (*self.action_buttons, self.relation_new):
            pushed.setEnabled(has)
        relation = self.current_relation() is not None
        self.relation_retype.setEnabled(has and relation)
        self.relation_delete.setEnabled(has and relation)
        self.view_chunk_button.setEnabled(has and bool(self.evidence.rows))

    def current_relation(self) -> g.Relation | None:
        index = self.relation_view.currentIndex()
        return self.relations.row_at(index.row()) if index.isValid() else None

    def current_span(self) -> g.EvidenceSpan | None:
        """The evidence row chosen, else the first one."""
        if not self.evidence.rows:
            return None
        index = self.evidence_view.currentIndex()
        return self.evidence.row_at(index.row()) if index.isValid() else self.evidence.rows[0]

    def _relation_open(self, row: int) -> None:
        relation = self.relations.row_at(row)
        shown = self.state.shown_id
        if relation is not None and shown is not None:
            self.navigate.emit(relation.tail_id if relation.head_id == shown else relation.head_id)

    def fit(self, columns: int) -> None:
        """A narrow relation table hides the source column; the buttons take ``columns``
        columns (two on a narrow panel)."""
        self.relation_view.setColumnHidden(2, self.relation_view.width() < 440)
        if columns == self._action_columns:
            return
        self._action_columns = columns
        for grid, buttons in (
            (self.action_grid, self.action_buttons),
            (self.relation_grid, self.relation_buttons),
        ):
            for pushed in buttons:
                grid.removeWidget(pushed)
            for i, pushed in enumerate(buttons):
                grid.addWidget(pushed, i // columns, i % columns)
        for column in range(3):
            self.action_grid.setColumnStretch(column, 1 if column < columns else 0)
