"""The selected document's line under the documents table, and the table's fit to its width.

The table is steady: its columns are the document's facts only, the same whatever the timing
or the scrolling (no per-row buttons coming and going). A row's actions are on this line, in
the row's context menu, on Ctrl+R, Enter and a double-click. The reason column takes what is
left, elided, with the whole reason as its tooltip; this line shows the selected document's
whole reason, wrapped and selectable, beside its actions: view chunks and open source, and for
a file that cannot be read (corrupt, empty) what can help: its reason in full, its folder, and
removing it from the library."""

from __future__ import annotations

import html

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.documents.columns import chunk_notes
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.locator import path_text
from goodbuddy_kb.ui.widgets.table_model import title_width

#: The least width the reason column keeps while a document on the page has a reason (the
#: document column gives way first, then the chunk count: at 800×600 the three statuses, the
#: least document width and this fit side by side, and the chunk count beside them only while
#: the graph column is hidden; the selected document's line says the count).
REASON_MIN_WIDTH = 190
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
        self.add_buttons(buttons)
        self.show_document(None, "")

    def add_buttons(self, buttons: list[QtWidgets.QPushButton]) -> None:
        layout = self.layout()
        assert isinstance(layout, QtWidgets.QHBoxLayout)
        for button in buttons:
            layout.addWidget(button, 0, QtCore.Qt.AlignmentFlag.AlignTop)

    def show_document(self, doc: c.Document | None, reason: str) -> None:
        """``reason`` is the document's reason in the user's language ("" when it has none)."""
        if doc is None:
            self.reason.setText(f"<span style='opacity:0.8'>{html.escape(tr('doc.select'))}</span>")
            self.reason.setToolTip("")
            return
        # the notes hold brackets of their own: they follow the count as " · " parts, the
        # same in both languages (not "(…; … (…))", mixed with Chinese full-width marks)
        # with chunks switched off, "1 chunk · ⊘ 1 chunk switched off" read as two facts about
        # one chunk (the chunk viewer says "2 chunks, 1 retrievable"): of how many it is said
        count = (
            tr(
                "doc.chunk_count_searched",
                count=doc.chunk_count,
                total=doc.chunk_count + doc.disabled_chunks,
            )
            if doc.disabled_chunks
            else tr("doc.chunk_count", count=doc.chunk_count)
        )
        counts = " · ".join([count, *chunk_notes(doc)])
        name = f"<b>{html.escape(path_text(doc.path))}</b> · " + html.escape(counts)
        if reason:
            self.reason.setText(f"{name} — ⚠ {html.escape(reason)}")
        else:
            self.reason.setText(f"{name} — {html.escape(tr('doc.no_reason'))}")
        self.reason.setToolTip(reason)


def fit_document_columns(
    view: QtWidgets.QTableView,
    reason_column: int,
    document_width: int,
    yielding: int,
    reasons: bool = True,
) -> None:
    """Give the reason column at least ``REASON_MIN_WIDTH`` by narrowing the document column
    (from ``document_width``, what its names need). Where even the least document width does
    not leave it that (800 px with every status column shown), the ``yielding`` column (the
    chunk count, which the selected document's line also says) is hidden until there is room.
    Never a horizontal scroll bar at 800 px. Without ``reasons`` (no document on the page has
    one) the reason column keeps only its title's width and the names come before the chunk
    count: at 800 px an empty column took the room the names needed ("admin-…ent.md" beside
    190 blank pixels)."""
    header = view.horizontalHeader()
    available = view.viewport().width()
    least = REASON_MIN_WIDTH if reasons else title_width(view, reason_column)
    names = DOCUMENT_MIN_WIDTH if reasons else document_width
    fixed = sum(
        header.sectionSize(i)
        for i in range(1, reason_column)
        if i != yielding and not header.isSectionHidden(i)
    )
    # what it needs whether shown or not (a hidden section's own size hint is not that, and
    # using it would show and hide the column in turn)
    wanted = max(
        title_width(view, yielding),
        view.sizeHintForColumn(yielding),
        header.minimumSectionSize(),
    )
    fits = available - fixed - wanted - least >= names
    view.setColumnHidden(yielding, not fits)
    if fits:
        header.resizeSection(yielding, wanted)
        fixed += wanted
    document = max(DOCUMENT_MIN_WIDTH, min(document_width, available - fixed - least))
    header.resizeSection(0, document)
