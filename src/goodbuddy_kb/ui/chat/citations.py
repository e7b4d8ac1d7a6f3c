"""The chat's "Sources consulted" pane: the citations of one answer (the last, or the one whose
marker was clicked) in a table that never scrolls sideways, each row headed by the number the
model was given it under, and the selected citation's context beside it (the detail pane).

The table fits its width: the document takes what is left (elided, the whole citation in its
tooltip), the location is capped and elided, and when the pane is too narrow the snippet and
then the channels columns step aside — both stay readable in the tooltip and the context pane.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.errors import KbError, NotFoundError
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.contracts.methods import REFERENCE_CONTEXT, REFERENCE_OPEN, REFERENCE_STATES
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import channel_name, listing, tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.locator import format_locator, path_text
from goodbuddy_kb.ui.widgets.reference_view import open_outcome, reference_html, show_hit
from goodbuddy_kb.ui.widgets.relevance import relevance_dots, relevance_text
from goodbuddy_kb.ui.widgets.source_opener import SourceOpener, outcome_label
from goodbuddy_kb.ui.widgets.table_model import Column, RowsModel
from goodbuddy_kb.ui.widgets.table_text import one_line, text_html

#: How much of a snippet a tooltip shows (the context pane has the whole chunk).
TOOLTIP_SNIPPET = 400


def _failed(error: KbError | None) -> str:
    """Why a citation cannot be shown: a source gone since the answer (its library, document or
    chunk deleted, or rebuilt into new chunks) says so, not "library not found"."""
    if isinstance(error, NotFoundError):
        return tr("chat.source_gone")
    return say_error(error) if error else ""


def _channels(x: c.Citation) -> str:
    """The channels that found a citation, as people call them (全文, 中文, 向量, 图谱)."""
    return listing(channel_name(name) for name in x.channels)


def _place(x: c.Citation) -> str:
    return format_locator(Locator.from_wire(x.locator))


def citation_tooltip(x: c.Citation, library: str | None = None) -> str:
    """The whole citation in a few lines: document (its file and library: two files, or two
    libraries, may hold documents of one title), location, relevance and channels, snippet."""
    line = one_line(x.snippet)
    snippet = line if len(line) <= TOOLTIP_SNIPPET else line[:TOOLTIP_SNIPPET] + "…"
    channels = _channels(x)
    where = " · ".join(
        p
        for p in (
            path_text(x.document_path) if x.document_path else "",
            tr("chat.in_library", name=library) if library else "",
        )
        if p
    )
    head = [
        x.document_title,
        where,
        _place(x),
        f"{tr('col.relevance')} {relevance_text(x.relevance)} · {tr('col.channels')} {channels}",
    ]
    return "\n".join(line for line in head if line) + "\n\n" + snippet


CITATION_COLUMNS: list[Column[c.Citation]] = [
    Column("col.path", lambda x: x.document_title, citation_tooltip),
    Column("col.locator", _place, _place),
    Column(
        "col.relevance",
        lambda x: f"{r.relevance_figure(x.relevance)} {relevance_dots(x.relevance)}",
        lambda x: relevance_text(x.relevance),
    ),
    Column("col.channels", _channels, _channels),
    Column("col.snippet", lambda x: one_line(x.snippet), citation_tooltip),
]
DOCUMENT, LOCATION, RELEVANCE, CHANNELS, SNIPPET = range(len(CITATION_COLUMNS))


#: The mark before a citation's document, and the line its tooltip ends with, by what became of
#: the passage since the answer (``knowledge:reference:states``).
STATE_MARKS = {"gone": ("⚠ ", "chat.cited_gone"), "changed": ("✎ ", "chat.cited_changed")}


def reference_of(x: c.Citation) -> r.ReferenceRequest:
    return r.ReferenceRequest(
        library_id=x.library_id,
        document_id=x.document_id,
        chunk_id=x.chunk_id,
        checksum=x.checksum or None,
    )


class CitationsModel(RowsModel[c.Citation]):
    """The citation rows; a row's header is its number [n] in the answer (blank for a citation
    stored before numbers were kept). A citation whose passage is gone or edited since is marked
    before its document (only the context pane said so, once chosen; a helper's try)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(CITATION_COLUMNS, parent)
        #: A library's name by its id (the chat view's library list), for the tooltips.
        self.library_name: Callable[[str], str | None] = lambda _id: None
        #: Each row's state as the backend last said ("valid", "changed", "gone"); none until
        #: it has, and none for rows set since.
        self.states: list[str] = []

    def set_rows(self, rows: Sequence[c.Citation]) -> None:
        self.states = []
        super().set_rows(rows)

    def set_states(self, states: Sequence[str]) -> None:
        if list(states) != self.states and len(states) == len(self.rows):
            self.states = list(states)
            self.dataChanged.emit(self.index(0, DOCUMENT), self.index(len(self.rows) - 1, DOCUMENT))

    def _state(self, row: int) -> tuple[str, str] | None:
        return STATE_MARKS.get(self.states[row]) if row < len(self.states) else None

    def data(
        self,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
        role: int = int(QtCore.Qt.ItemDataRole.DisplayRole),
    ) -> Any:
        x = self.row_at(index.row()) if index.isValid() else None
        if x is not None:
            column, state = index.column(), self._state(index.row())
            if role == QtCore.Qt.ItemDataRole.ToolTipRole and column in (DOCUMENT, SNIPPET):
                tip = citation_tooltip(x, self.library_name(x.library_id))
                return tip + "\n\n" + tr(state[1]) if state else tip
            if role == QtCore.Qt.ItemDataRole.DisplayRole and column == DOCUMENT:
                title = x.document_title
                if len({y.library_id for y in self.rows}) > 1:
                    # sources of several libraries: whose each is (two companies' "Hotels" read
                    # alike, their names only in the tooltips; a helper's try)
                    library = self.library_name(x.library_id)
                    title = f"{library} / {title}" if library else title
                return state[0] + title if state else title
        return super().data(index, role)

    def headerData(
        self,
        section: int,
        orientation: QtCore.Qt.Orientation,
        role: int = int(QtCore.Qt.ItemDataRole.DisplayRole),
    ) -> Any:
        if (
            orientation == QtCore.Qt.Orientation.Vertical
            and role == QtCore.Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.rows)
        ):
            number = self.rows[section].number
            return "" if number is None else number
        return super().headerData(section, orientation, role)

    def row_of(self, number: int) -> int | None:
        """The row of citation ``number``; None when the answer has no such citation."""
        return next((i for i, x in enumerate(self.rows) if x.number == number), None)


#: Narrowest useful widths: below them a column steps aside (or elides, for the document).
DOCUMENT_MIN = 110
LOCATION_MAX = 170
LOCATION_SHARE = 0.4
SNIPPET_MIN = 140
#: A header's padding and sort-indicator room around its bold title.
HEADER_PADDING = 24


class CitationTableView(QtWidgets.QTableView):
    """A table of citations whose columns always add up to its width (no sideways scroll)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWordWrap(False)
        self.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)
        header = self.horizontalHeader()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(36)
        header.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        # A vertical scroll bar appearing narrows the viewport without resizing the view.
        self.verticalScrollBar().rangeChanged.connect(
            lambda *_: QtCore.QTimer.singleShot(0, self.fit)
        )

    def setModel(self, model: QtCore.QAbstractItemModel | None) -> None:
        super().setModel(model)
        if model is not None:
            model.modelReset.connect(self.fit)
        self.fit()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit()

    def _natural(self, column: int) -> int:
        """As wide as the header (bold, padded by the style sheet) and the cells read."""
        header = self.horizontalHeader()
        font = header.font()
        font.setBold(True)
        title = str(self.model().headerData(column, QtCore.Qt.Orientation.Horizontal))
        label = QtGui.QFontMetrics(font).horizontalAdvance(title) + HEADER_PADDING
        return max(header.sectionSizeHint(column), label, self.sizeHintForColumn(column))

    def fit(self) -> None:
        """Columns for the width there is: snippet, then channels step aside when it is narrow."""
        model = self.model()
        if model is None or model.columnCount() != len(CITATION_COLUMNS):
            return
        header = self.horizontalHeader()
        available = self.viewport().width()
        relevance = self._natural(RELEVANCE)
        # The location never takes more than 40 % of what the relevance leaves (nor 170 px).
        share = int((available - relevance) * LOCATION_SHARE)
        location = max(
            header.minimumSectionSize(), min(self._natural(LOCATION), LOCATION_MAX, share)
        )
        widths = {LOCATION: location, RELEVANCE: relevance, CHANNELS: self._natural(CHANNELS)}
        fixed = widths[LOCATION] + widths[RELEVANCE]
        show_channels = DOCUMENT_MIN + fixed + widths[CHANNELS] <= available
        if show_channels:
            fixed += widths[CHANNELS]
        show_snippet = show_channels and DOCUMENT_MIN + fixed + SNIPPET_MIN <= available
        self.setColumnHidden(CHANNELS, not show_channels)
        self.setColumnHidden(SNIPPET, not show_snippet)
        for column in range(len(CITATION_COLUMNS)):
            header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.Fixed)
        for column, width in widths.items():
            header.resizeSection(column, width)
        rest = max(header.minimumSectionSize(), available - fixed)
        if show_snippet:
            document = min(max(DOCUMENT_MIN, self._natural(DOCUMENT)), rest - SNIPPET_MIN)
            header.resizeSection(DOCUMENT, document)
            header.resizeSection(SNIPPET, max(header.minimumSectionSize(), rest - document))
        else:
            header.resizeSection(DOCUMENT, rest)


class CitationsPane(QtWidgets.QWidget):
    """ "Sources consulted": the citation table with its actions, and the context pane."""

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.model = CitationsModel(self)
        self.label = QtWidgets.QLabel(f"<b>{tr('chat.sources')}</b>")
        self.table = CitationTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(tr("chat.sources"))
        # The context pane follows the selected citation (mouse or keyboard); the selection, not
        # the current row, which a click makes current before it selects it, and which ctrl+click
        # leaves current while it deselects it (nothing to show or open then).
        self.table.selectionModel().selectionChanged.connect(lambda *_: self.show_context())
        # (no "Show context" button: the pane already follows the selected citation, and the
        # button showed the same again — pressing it changed nothing a helper could see)
        self.open_button = QtWidgets.QPushButton(tr("workbench.open_source"))
        self.open_button.clicked.connect(self.open_source)
        self.reference = QtWidgets.QTextBrowser()
        self.reference.setAccessibleName(tr("chat.expand"))
        self.reference.setMinimumWidth(160)
        self.opener = SourceOpener(self, link)
        #: The citation whose context is shown and what the backend said of it.
        self._shown: tuple[r.ReferenceRequest, str] | None = None
        self.opened = outcome_label(self.opener)
        actions = QtWidgets.QHBoxLayout()
        actions.addWidget(self.open_button)
        actions.addWidget(self.opened, 1)
        citations = QtWidgets.QWidget()
        citations_layout = QtWidgets.QVBoxLayout(citations)
        citations_layout.setContentsMargins(0, 0, 0, 0)
        citations_layout.addWidget(self.table, 1)
        citations_layout.addLayout(actions)
        citations.setMinimumWidth(DOCUMENT_MIN + 120)
        self.beside = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        self.beside.setChildrenCollapsible(False)
        self.beside.addWidget(citations)
        self.beside.addWidget(self.reference)
        self.beside.setStretchFactor(0, 3)
        self.beside.setStretchFactor(1, 2)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.beside, 1)
        self._update_actions()

    def show_answer(self, citations: list[c.Citation], answer: int | None) -> None:
        """The citations of one answer; ``answer`` is its place in the conversation when it is
        not the latest (the title says which answer the list belongs to)."""
        title = tr("chat.sources") if answer is None else tr("chat.sources_of", n=answer)
        self.label.setText(f"<b>{title}</b>")
        if citations != self.model.rows:  # a redraw keeps the chosen citation selected
            self.model.set_rows(citations)
            self.check_states()
            self._update_actions()
            # another answer's list: the passage shown beside belonged to the old one
            self.reference.clear()
            self.opened.clear()

    def _current(self) -> c.Citation | None:
        """The citation selected (its context shown), None when none is."""
        return self.model.chosen(self.table)

    def current_number(self) -> int | None:
        x = self._current()
        return x.number if x is not None else None

    def select(self, number: int) -> bool:
        """Select citation ``number`` (the [n] of its answer) and show its context; False when
        the shown answer has no such citation."""
        row = self.model.row_of(number)
        if row is None:
            return False
        self.table.selectRow(row)
        self.table.scrollTo(self.model.index(row, 0))  # a long list shows the chosen row
        self.show_context()
        return True

    def _reference(self) -> r.ReferenceRequest | None:
        x = self._current()
        return None if x is None else reference_of(x)

    def check_states(self) -> None:
        """Ask what became of every citation listed; the rows are marked when the answer comes
        (if the list is still the same)."""
        rows = list(self.model.rows)
        if not rows:
            return

        def done(result: r.ReferenceStatesResponse | None, _error: KbError | None) -> None:
            if result is not None and self.model.rows == rows:
                self.model.set_states(result.states)

        request = r.ReferenceStatesRequest(references=[reference_of(x) for x in rows])
        self.link.call(REFERENCE_STATES, request, done)

    def _update_actions(self) -> None:
        chosen = self._current() is not None  # nothing to show or open without a citation
        self.open_button.setEnabled(chosen)

    def show_context(self, quiet: bool = False) -> None:
        """The chosen citation's context; ``quiet``: read again after a change, shown again
        only if it differs (a sync's notices would otherwise reset what the person reads)."""
        if not quiet:
            self.opened.clear()
        self._update_actions()
        ref, cited = self._reference(), self._current()
        if ref is None or cited is None:
            return
        # what the answer quoted, kept with it: shown under a citation gone or changed since
        # (the pane said only "This citation is no longer valid"; a helper's try)
        quoted = (
            f"<p><i>{html.escape(tr('chat.quoted_then'))}</i></p>{text_html(cited.snippet)}"
            if cited.snippet
            else ""
        )

        def done(result: r.ReferenceContextResponse | None, error: KbError | None) -> None:
            if self._reference() != ref:
                return  # another citation, or another answer's list, is shown by now
            shown = (ref, result.model_dump_json() if result is not None else str(error))
            if quiet and shown == self._shown:
                return
            self._shown = shown
            if result is None:
                self.reference.setHtml(f"<p><b>{html.escape(_failed(error))}</b></p>{quoted}")
            elif not result.valid:
                self.reference.setHtml(reference_html(result) + quoted)
            elif result.changed:
                # edited since the answer cited it: the text now, said so, then what it quoted
                note = f"<p><b>{html.escape(tr('chat.changed_since'))}</b></p>"
                self.reference.setHtml(note + reference_html(result) + quoted)
            else:
                self.reference.setHtml(reference_html(result))
                if len(result.chunks) > 1:  # the cited chunk first, its neighbours around it
                    show_hit(self.reference)

        self.link.call(REFERENCE_CONTEXT, ref, done)

    def recheck(self, library_ids: list[str]) -> None:
        """Documents of these libraries changed: the citation shown is read again (one said
        "no longer valid" after its file was put back, until chosen anew)."""
        cited = self._current()
        if cited is not None and (not library_ids or cited.library_id in library_ids):
            self.show_context(quiet=True)
        if not library_ids or any(x.library_id in library_ids for x in self.model.rows):
            self.check_states()

    def open_source(self) -> None:
        ref, x = self._reference(), self._current()
        if ref is None or x is None:
            return
        locator = Locator.from_wire(x.locator)

        def done(_result: object, error: KbError | None) -> None:
            if isinstance(error, NotFoundError):  # nothing left to open, copy or show
                self.opened.setText(_failed(error))
                return
            self.opened.setText(open_outcome(x.document_title, locator, error))
            if error is not None:
                self.opener.failed(ref.library_id, ref.document_id, error)

        self.link.call(REFERENCE_OPEN, ref, done)
