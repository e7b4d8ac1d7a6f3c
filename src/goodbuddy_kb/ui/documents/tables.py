"""The two tables of the documents pane as views, configured once: the sources table and the
paged document table (rows selected whole, Tab leaving the table, text elided rather than
wrapped, columns fitted to the width)."""

from __future__ import annotations

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.documents.bar import DOCUMENT_WIDTH, ElideEndDelegate
from goodbuddy_kb.ui.documents.columns import DOCUMENT_COLUMNS, OCR_COLUMN
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.table_model import RowsModel, fit_columns


def source_table(sources: RowsModel[c.Source]) -> QtWidgets.QTableView:
    """The sources table: one row selected at a time, locations elided in the middle."""
    view = QtWidgets.QTableView()
    view.setModel(sources)
    view.setAccessibleName(tr("sources.heading"))
    view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
    view.horizontalHeader().setStretchLastSection(True)
    view.setTabKeyNavigation(False)  # Tab leaves the table, arrows move in it
    view.setMinimumHeight(72)
    view.setWordWrap(False)
    view.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
    fit_columns(view, stretch=1)
    return view


def document_table(documents: RowsModel[c.Document]) -> QtWidgets.QTableView:
    """The document table: the reason (the last column) takes the rest of the width and reads
    from its start; the other cells elide in the middle."""
    view = QtWidgets.QTableView()
    view.setModel(documents)
    view.setAccessibleName(tr("docs.filter.all"))
    view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
    view.horizontalHeader().setStretchLastSection(True)
    view.setTabKeyNavigation(False)  # Tab leaves the table
    view.setItemDelegateForColumn(len(DOCUMENT_COLUMNS) - 1, ElideEndDelegate(view))
    view.setAlternatingRowColors(True)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.setWordWrap(False)
    view.setMinimumHeight(120)
    view.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)
    fit_columns(view, stretch=len(DOCUMENT_COLUMNS) - 1, wide={0: DOCUMENT_WIDTH})
    # shown once a document on the page needs OCR (it stood, empty, in the first frames of a
    # language switch before the documents came)
    view.setColumnHidden(OCR_COLUMN, True)
    return view


#: Sources the sources pane shows whole before it scrolls (it grows to them as they come).
SOURCE_ROWS_SHOWN = 3
#: What the documents pane keeps when the sources pane grows.
DOCUMENTS_MIN_HEIGHT = 240


def fit_sources(view: QtWidgets.QTableView, split: QtWidgets.QSplitter) -> None:
    """The sources pane (``split``'s first part) grows, never shrinks, to show up to
    SOURCE_ROWS_SHOWN sources whole: it opened one row high, so a second source was cut off."""
    rows = min(SOURCE_ROWS_SHOWN, max(1, view.model().rowCount()))
    # the rows' own heights: in Chinese they are taller than the default (two sources scrolled)
    heights = [view.rowHeight(i) for i in range(min(rows, view.model().rowCount()))]
    heights += [view.verticalHeader().defaultSectionSize()] * (rows - len(heights))
    wanted = view.horizontalHeader().height() + sum(heights) + 2 * view.frameWidth()
    grow = wanted - view.height()
    top, bottom = split.sizes()
    if grow > 0 and bottom - grow >= DOCUMENTS_MIN_HEIGHT:
        split.setSizes([top + grow, bottom - grow])


def show_watch(box: QtWidgets.QCheckBox, source: c.Source | None, sources: list[c.Source]) -> None:
    """The "Watch folder" switch shows the selected folder source's watching. With no source
    selected it is off limits and shows the library's folders, as the Watch column does:
    checked when every folder is watched, partly when some are (it read unchecked beside a
    column saying "On", found under Xvfb)."""
    box.blockSignals(True)
    if source is not None:
        box.setTristate(False)
        box.setChecked(source.watch)
        box.setEnabled(source.kind == "folder")
        box.setToolTip("")
    else:
        folders = [s for s in sources if s.kind == "folder"]
        watched = sum(1 for s in folders if s.watch)
        state = QtCore.Qt.CheckState.Unchecked
        if folders and watched == len(folders):
            state = QtCore.Qt.CheckState.Checked
        elif watched:
            state = QtCore.Qt.CheckState.PartiallyChecked
        box.setTristate(state == QtCore.Qt.CheckState.PartiallyChecked)
        box.setCheckState(state)
        box.setEnabled(False)
        box.setToolTip(tr("sources.watch_select") if folders else "")
    box.blockSignals(False)
