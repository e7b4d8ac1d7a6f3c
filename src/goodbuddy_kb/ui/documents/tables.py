"""The two tables of the documents pane as views, configured once: the sources table and the
paged document table (rows selected whole, Tab leaving the table, text elided rather than
wrapped, columns fitted to the width)."""

from __future__ import annotations

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.documents.bar import DOCUMENT_WIDTH, ElideEndDelegate
from goodbuddy_kb.ui.documents.columns import DOCUMENT_COLUMNS
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
    return view
