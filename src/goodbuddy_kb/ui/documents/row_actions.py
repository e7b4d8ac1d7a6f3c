"""Mouse and keyboard habits of the documents table: the rows' context menu and double-click,
opening a document's source, copying its full path and its details. The row actions other parts
add (rebuild, view chunks) join the same menu; double-click opens the chunk view where there is
one, else the document's details. The table, its models and the link are handed in; the tab
connects ``notice``.

Open source goes through the backend (``knowledge:document:open``, ``widgets/source_opener.py``),
which re-checks the document's ids and what it opens; the GUI never hands it a path or an
address. A failed document opens too (its file is what needs looking at); when nothing on this
system can open files, the error offers "Copy path" and "Show in folder"."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents.columns import vector_status
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.widgets.source_opener import SourceOpener
from goodbuddy_kb.ui.widgets.table_model import RowsModel, follow_choice


def full_path(doc: c.Document, source: c.Source | None) -> str:
    """Where the document lives: the file, the folder's file (an e-mail attachment's message),
    or the page's address."""
    if source is None or source.kind == "web":
        return readable_path(doc.path)
    if source.kind == "file":
        return readable_path(source.location)
    return readable_path(str(Path(source.location) / (doc.message_path or doc.path)))


def details_html(doc: c.Document, source: c.Source | None) -> str:
    rows = [
        (tr("ref.document"), doc.title or doc.path),
        (tr("col.location"), full_path(doc, source)),
        (tr("col.parse"), tr(f"status.{doc.status.parse}")),
        (tr("col.fulltext"), tr(f"status.{doc.status.fulltext}")),
        (tr("col.vector"), vector_status(doc)),
        (tr("col.chunks"), str(doc.chunk_count)),
        (tr("doc.updated"), doc.updated_at[:19].replace("T", " ")),
    ]
    if doc.error:
        rows.append((tr("col.error"), "⚠ " + say_field(doc, "error")))
    if doc.retryable_error:
        rows.append((tr("doc.retryable"), "⟳ " + say_field(doc, "retryable_error")))
    cells = "".join(
        f"<tr><td style='padding-right:12px'><b>{html.escape(k)}</b></td>"
        f"<td>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<table>{cells}</table>"


class DocumentRowActions(QtCore.QObject):
    """Context menu, double-click, copy path and details for the documents table ``view`` over
    ``documents`` (``sources`` names where each lives). ``library_id`` says which library the
    table shows; what happened is said through ``notice``. ``chunk_view``: the table has a chunk
    view, which then owns "View chunks" and the double-click (activation)."""

    notice = QtCore.Signal(str)

    def __init__(
        self,
        parent: QtWidgets.QWidget,
        view: QtWidgets.QTableView,
        documents: RowsModel[c.Document],
        sources: RowsModel[c.Source],
        link: BackendLink,
        library_id: Callable[[], str | None],
        *,
        chunk_view: bool = True,
    ) -> None:
        super().__init__(parent)
        self._parent, self.view, self.documents, self.sources = parent, view, documents, sources
        self.link, self.library_id = link, library_id
        self.details_box: QtWidgets.QMessageBox | None = None
        self.opener = SourceOpener(parent, link)
        self.opener.notice.connect(self.notice.emit)
        view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.ActionsContextMenu)
        self.chunk_view = chunk_view
        self.open_action = QtGui.QAction(tr("doc.open_source"), view)
        self.open_action.triggered.connect(self.open_source)
        self.details_action = QtGui.QAction(tr("doc.details"), view)
        self.details_action.triggered.connect(self.show_details)
        self.copy_action = QtGui.QAction(tr("doc.copy_path"), view)
        self.copy_action.setShortcut(QtGui.QKeySequence.StandardKey.Copy)
        self.copy_action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        self.copy_action.triggered.connect(self.copy_path)
        for action in (self.open_action, self.copy_action, self.details_action):
            view.addAction(action)
        if not self.chunk_view:
            view.doubleClicked.connect(lambda _index: self.open_row())
        # The row menu's actions (the table's own, added before, too) only while a row is
        # chosen: a right-click below the rows offered them all, and they did nothing.
        follow_choice(view, self.update_actions)
        documents.modelReset.connect(self.update_actions)
        self.update_actions()

    def update_actions(self) -> None:
        chosen = self.document() is not None
        for action in self.view.actions():
            action.setEnabled(chosen)

    def document(self) -> c.Document | None:
        return self.documents.chosen(self.view)

    def source_of(self, doc: c.Document) -> c.Source | None:
        return next((s for s in self.sources.rows if s.id == doc.source_id), None)

    def open_row(self) -> None:
        """Double-click without a chunk view: the document's details."""
        self.show_details()

    def open_source(self) -> None:
        """Open the selected document's file or page with the system's program, through the
        backend (a failed document too)."""
        doc = self.document()
        library_id = self.library_id()
        if doc is not None and library_id is not None:
            self.opener.open_document(library_id, doc.id, doc.path)

    def copy_path(self) -> None:
        doc = self.document()
        if doc is None:
            return
        path = full_path(doc, self.source_of(doc))
        QtGui.QGuiApplication.clipboard().setText(path)
        self.notice.emit(tr("doc.copied", path=path))

    def show_details(self) -> None:
        doc = self.document()
        if doc is None:
            return
        box = QtWidgets.QMessageBox(self._parent)
        box.setWindowTitle(tr("doc.details.title", name=doc.title or doc.path))
        box.setTextFormat(QtCore.Qt.TextFormat.RichText)
        box.setText(details_html(doc, self.source_of(doc)))
        box.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        close = box.addButton(tr("dialog.close"), QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        box.setDefaultButton(close)
        box.setEscapeButton(close)
        self.details_box = box
        box.open()
