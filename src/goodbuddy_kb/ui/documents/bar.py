"""The selected document's line under the documents table, the rows' action buttons, and the
table's fit to its width.

A narrow window (800×600) has no room for the four stage statuses, the per-row buttons and a
readable reason side by side. So the table fits its width: when the row buttons would push the
reason off-screen they give way (the same actions stay on this line, in the row's context menu,
on Ctrl+R, Enter and a double-click), and the reason column takes the rest, elided, with the
whole reason as its tooltip. This line shows the selected document's whole reason, wrapped and
selectable, beside its actions: rebuild, view chunks and open source."""

from __future__ import annotations

import html
from collections.abc import Callable

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.documents import rebuild_actions
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.locator import path_text

#: The least width the reason column keeps before the row buttons give way to it.
REASON_MIN_WIDTH = 220
#: The document column's width when there is room, and the least it shrinks to.
DOCUMENT_WIDTH = 170
DOCUMENT_MIN_WIDTH = 110


class ElideEndDelegate(QtWidgets.QStyledItemDelegate):
    """Cells whose text reads from its start (a reason): elided at the end, not the middle."""

    def initStyleOption(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> None:
        super().initStyleOption(option, index)
        option.textElideMode = QtCore.Qt.TextElideMode.ElideRight


class SelectedDocumentBar(QtWidgets.QFrame):
    """The selected document's whole reason and its actions (the buttons are given)."""

    def __init__(
        self, buttons: list[QtWidgets.QPushButton], parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("selectedDocument")
        self.reason = QtWidgets.QLabel()
        self.reason.setObjectName("documentReason")
        self.reason.setWordWrap(True)
        self.reason.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.reason.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.reason.setAccessibleName(tr("col.error"))
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.reason, 1)
        for button in buttons:
            layout.addWidget(button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        self.show_document(None, "")

    def show_document(self, doc: c.Document | None, reason: str) -> None:
        """``reason`` is the document's reason in the user's language ("" when it has none)."""
        if doc is None:
            self.reason.setText(f"<span style='opacity:0.8'>{html.escape(tr('doc.select'))}</span>")
            self.reason.setToolTip("")
            return
        name = html.escape(path_text(doc.path))
        if reason:
            self.reason.setText(f"<b>{name}</b> — ⚠ {html.escape(reason)}")
        else:
            self.reason.setText(f"<b>{name}</b> — {html.escape(tr('doc.no_reason'))}")
        self.reason.setToolTip(reason)


def fit_document_columns(
    view: QtWidgets.QTableView, action_column: int, reason_column: int, document_width: int
) -> None:
    """Give the reason column at least ``REASON_MIN_WIDTH``: first by narrowing the document
    column (from ``document_width``, what its names need), then by hiding the row buttons.
    Never a horizontal scroll bar at 800 px."""
    header = view.horizontalHeader()
    model = view.model()
    available = view.viewport().width()
    fixed = sum(
        header.sectionSize(i)
        for i in range(1, reason_column)
        if i != action_column and not header.isSectionHidden(i)
    )
    cells = [view.indexWidget(model.index(row, action_column)) for row in range(model.rowCount())]
    actions = max(
        [cell.sizeHint().width() for cell in cells if cell is not None]
        or [header.sectionSizeHint(action_column)]
    )
    document = max(
        DOCUMENT_MIN_WIDTH, min(document_width, available - fixed - actions - REASON_MIN_WIDTH)
    )
    narrow = available - fixed - actions - document < REASON_MIN_WIDTH
    if narrow:
        document = max(
            DOCUMENT_MIN_WIDTH, min(document_width, available - fixed - REASON_MIN_WIDTH)
        )
    header.setSectionHidden(action_column, narrow)
    header.resizeSection(0, document)


def row_buttons(
    doc: c.Document,
    rebuild: Callable[[c.Document], None],
    open_chunks: Callable[[c.Document], object],
) -> QtWidgets.QWidget:
    """A row's action cell: "Rebuild document" (a prominent "retry" on a failed document) and
    "View chunks"; the cell's ``rebuildButton`` and ``chunksButton`` properties name them."""
    failed = rebuild_actions.is_failed(doc)
    button = QtWidgets.QPushButton(tr("rebuild.document.retry" if failed else "rebuild.document"))
    button.setObjectName("retryButton" if failed else "rowRebuildButton")
    button.setAccessibleName(f"{tr('rebuild.document')}: {doc.path}")
    if failed:
        font = button.font()
        font.setBold(True)
        button.setFont(font)
    button.clicked.connect(lambda _c=False: rebuild(doc))
    chunks = QtWidgets.QPushButton(tr("docs.view_chunks"))
    chunks.setObjectName("rowChunksButton")
    chunks.setAccessibleName(f"{tr('docs.view_chunks')}: {doc.path}")
    chunks.clicked.connect(lambda _c=False: open_chunks(doc))
    # Compact (the style sheet drops their padding) so they sit inside a table row.
    for each in (button, chunks):
        each.setMaximumHeight(each.fontMetrics().height() + 6)
    cell = QtWidgets.QWidget()
    cell_layout = QtWidgets.QHBoxLayout(cell)
    cell_layout.setContentsMargins(0, 1, 0, 1)
    cell_layout.setSpacing(4)
    cell_layout.addWidget(button)
    cell_layout.addWidget(chunks)
    cell.setProperty("rebuildButton", button)
    cell.setProperty("chunksButton", chunks)
    return cell
