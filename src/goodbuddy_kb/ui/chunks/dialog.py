"""The chunk maintenance dialog (PRD §8.4, US-G1–G4), opened from a document row: a paged table
of the document's chunks with a search within it, the selected chunk in full, a plain-text
editor with a live count against the limit (a failed save keeps the draft), an enable switch,
and delete with a confirmation naming the chunk. Parents and children are told apart by text.
It says, before every edit and delete, that a re-sync of a changed file re-creates chunks.
Text that came from OCR says so (``OCR`` beside the page locator, a note above the content), and
its low-confidence lines are marked in the content (a shade and a wavy underline, listed in
words above it): they stay searchable, but a person should double-check them.

Modal (the focus stays inside), Escape closes (asking first when a draft is unsaved); the
caller puts the focus back on the document row. The dialog owns the page, the requests and the
edit flow; the chunk pane (``pane``) shows and edits the selected chunk, and how a chunk reads
is in ``model``."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.bridge.client import Callback
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CHUNK_DELETE,
    CHUNK_GET,
    CHUNK_UPDATE,
    CHUNKS_DISMISS_REPLACED,
    CHUNKS_LIST,
    MethodSpec,
    Req,
    Resp,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chunks.model import CHUNK_COLUMNS, chunk_label, delete_text, document_text
from goodbuddy_kb.ui.chunks.pane import ChunkPaneWidget
from goodbuddy_kb.ui.chunks.replaced import replaced_box
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.confirm import confirm_action
from goodbuddy_kb.ui.widgets.pager import PagerWidget, page_text
from goodbuddy_kb.ui.widgets.table_model import ColumnFitter, RowsModel
from goodbuddy_kb.ui.widgets.ticket import Ticket

PAGE = 50
#: Below this width the table sits above the chunk instead of beside it.
SIDE_BY_SIDE_WIDTH = 1000


class ChunksDialog(QtWidgets.QDialog):
    """Emits ``notice`` with a short message after each change (the window shows it)."""

    notice = QtCore.Signal(str)
    #: A page of chunks arrived (tests wait on it).
    loaded = QtCore.Signal()
    #: The selected chunk's full content arrived.
    shown = QtCore.Signal()

    def __init__(
        self,
        link: BackendLink,
        library_id: str,
        document_id: str,
        document_path: str,
        parent: QtWidgets.QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.link = link
        self.library_id = library_id
        self.document_id = document_id
        self.document_path = document_path
        self.cursors: list[str | None] = [None]
        self.next_cursor: str | None = None
        self.total = 0
        self.detail: k.ChunkDetail | None = None
        self.info: k.ChunkDocumentInfo | None = None
        self.confirm_box: QtWidgets.QMessageBox | None = None
        self._select_after_load: str | None = None
        #: The chunk the person last moved to since a page was shown (not a page's own
        #: selection): it wins over what a reload on its way was to select, a save's or a
        #: switch's included (CI: a switch's page arriving after a move to another row put the
        #: selection back on the switched chunk).
        self._moved_to: str | None = None
        self._applying = False
        self._closed = False
        #: Only the latest page and detail requests may fill the view (reads answer in parallel,
        #: so an older answer can arrive after a newer one).
        self._pages = Ticket()
        self._details = Ticket()
        # a chunk switched off reads greyed as well as "– Off" (no search uses it)
        self.model = RowsModel(CHUNK_COLUMNS, self, muted=lambda chunk: not chunk.enabled)
        self.setWindowTitle(tr("chunks.title", path=document_path))
        self.setModal(True)
        self._build()
        # within the screen it opens on (an 800×600 screen got a 1100×700 dialog)
        room = self.screen().availableGeometry()
        self.resize(min(1100, room.width()), min(700, room.height()))
        self._search_timer = QtCore.QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(lambda: self.reload(reset=True))
        link.changed.connect(self._on_changed)
        self.reload(reset=True)

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.info_label = QtWidgets.QLabel()
        self.info_label.setWordWrap(True)
        self.replaced_button = QtWidgets.QPushButton()  # the edits a changed file replaced
        self.replaced_button.clicked.connect(self.show_replaced)
        self.replaced: list[k.ReplacedEdit] = []
        self.warning = QtWidgets.QLabel("⚠ " + tr("chunks.sync_warning"))
        self.warning.setWordWrap(True)
        self.warning.setObjectName("syncWarning")
        #: "No search returns any part of this document" — beside Close, on one line, so that
        #: its coming and going never moves the table or the switch under the pointer (it did
        #: when it was a second line of the counts above them).
        self.empty_label = QtWidgets.QLabel("✗ " + tr("chunks.no_retrievable"))
        self.empty_label.setObjectName("fieldError")
        self.empty_label.setToolTip(tr("chunks.no_retrievable"))
        self.empty_label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed
        )
        self.empty_label.hide()
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText(tr("chunks.search.placeholder"))
        self.search.setAccessibleName(tr("chunks.search"))
        self.search.setClearButtonEnabled(True)
        self.search.setMaxLength(k.MAX_CHUNK_SEARCH_CHARACTERS)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        search_label = QtWidgets.QLabel(tr("chunks.search"))
        search_label.setBuddy(self.search)
        self.role_box = QtWidgets.QComboBox()
        self.role_box.setAccessibleName(tr("chunks.role_filter"))
        for key, value in (
            ("chunks.filter.all", None),
            ("chunks.filter.standalone", "standalone"),
            ("chunks.filter.parent", "parent"),
            ("chunks.filter.child", "child"),
        ):
            self.role_box.addItem(tr(key), value)
        self.role_box.currentIndexChanged.connect(lambda _i: self.reload(reset=True))
        self.pager = PagerWidget("docs.prev", "docs.next", auto_default=False)
        self.pager.step.connect(self._page)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(search_label)
        top.addWidget(self.search, 1)
        top.addWidget(self.role_box)
        top.addWidget(self.pager)

        self.table = QtWidgets.QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(tr("chunks.table"))
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().setVisible(False)
        # Within the table's width beside the chunk (no sideways scrolling): the heading
        # takes what is left and elides, its preview in the tooltip.
        self.fitter = ColumnFitter(self.table, stretch=2)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._row_changed())

        self.pane = ChunkPaneWidget()
        self.pane.edit_requested.connect(self.start_edit)
        self.pane.save_requested.connect(self.save)
        self.pane.cancel_requested.connect(self.cancel_edit)
        self.pane.delete_requested.connect(self.delete)
        self.pane.enabled_toggled.connect(self.set_enabled)
        self.close_button = button("dialog.close", self.reject, auto_default=False)
        self.splitter = QtWidgets.QSplitter()
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(self.pane)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        bottom = QtWidgets.QHBoxLayout()
        bottom.addWidget(self.replaced_button)
        bottom.addWidget(self.empty_label, 1)
        bottom.addStretch(0)
        bottom.addWidget(self.close_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.info_label)
        layout.addWidget(self.warning)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(bottom)
        for keys, slot in (
            ("Ctrl+F", self.search.setFocus),
            ("F2", self.start_edit),
            ("Ctrl+S", self.save),
        ):
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(keys), self)
            shortcut.activated.connect(slot)
        delete_key = QtGui.QShortcut(QtGui.QKeySequence.StandardKey.Delete, self.table)
        delete_key.setContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        delete_key.activated.connect(self.delete)
        self._set_editing(False)
        self.pane.show_nothing()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        wide = event.size().width() >= SIDE_BY_SIDE_WIDTH
        orientation = QtCore.Qt.Orientation.Horizontal if wide else QtCore.Qt.Orientation.Vertical
        if orientation != self.splitter.orientation():
            self.splitter.setOrientation(orientation)
            if wide:  # half each: at 1024 px the table's share scrolled its columns sideways
                half = event.size().width() // 2
                self.splitter.setSizes([half, half])
        super().resizeEvent(event)

    def _call(self, spec: MethodSpec[Req, Resp], request: Req, callback: Callback[Resp]) -> None:
        """A backend call whose answer is dropped once the dialog has closed (it is deleted
        on close; a late answer must not touch its widgets). A change makes every page and
        detail read already on its way stale: it may have read the chunk before the change and
        would show the old state again (the switch flipping back) until the reload that follows
        the change."""
        if spec.mutates:
            self._pages.drop()
            self._details.drop()

        def answer(result: Resp | None, error: KbError | None) -> None:
            if not self._closed:
                callback(result, error)

        self.link.call(spec, request, answer)

    def done(self, result: int) -> None:
        self._closed = True
        super().done(result)

    # -- loading -------------------------------------------------------------------------------
    def reload(self, reset: bool = False, select: str | None = None) -> None:
        if reset:
            self.cursors = [None]
        current = self.current_chunk()
        # the chunk asked for, else one a reload still on its way was to select (a save's: a
        # change notice may arrive before its page), else the row selected, else the one shown.
        # The row selected before the one shown: a notice (a graph extraction finishing after
        # an edit) arriving between a move to another row and that row's details put the
        # selection back on the row the details were still showing.
        self._select_after_load = (
            select
            or self._select_after_load
            or (current.id if current is not None else None)
            or (self.detail.chunk.id if self.detail else None)
        )
        request = k.ChunksListRequest(
            library_id=self.library_id,
            document_id=self.document_id,
            cursor=self.cursors[-1],
            limit=PAGE,
            search=self.search.text().strip() or None,
            role=self.role_box.currentData(),
        )
        self._call(CHUNKS_LIST, request, self._pages.latest(self._got_page))

    def _got_page(self, result: k.ChunksListResponse | None, error: KbError | None) -> None:
        if result is None:
            self.info_label.setText(tr("error.generic", message=error.message if error else ""))
            return
        self._applying = True
        try:
            self._show_page(result)
        finally:
            self._applying = False
        self.loaded.emit()

    def _show_page(self, result: k.ChunksListResponse) -> None:
        self.info = result.document
        self.total = result.total
        self.next_cursor = result.next_cursor
        self.model.set_rows(result.chunks)  # the column fitter sizes the columns
        first = int(self.cursors[-1] or 0)
        self.pager.show_page(
            page_text(first + 1 if result.chunks else 0, first + len(result.chunks), result.total),
            has_previous=len(self.cursors) > 1,
            has_next=result.next_cursor is not None,
        )
        self.info_label.setText(document_text(result.document))
        self.replaced = result.replaced
        self.replaced_button.setText(tr("chunks.replaced.button", n=len(result.replaced)))
        self.replaced_button.setVisible(bool(result.replaced))
        self.empty_label.setVisible(result.document.retrievable_chunks == 0)
        # the row the person moved to while the page was on its way, else the one asked for
        wanted = self._moved_to or self._select_after_load
        self._select_after_load = self._moved_to = None
        row = next((i for i, c in enumerate(result.chunks) if c.id == wanted), -1)
        if row < 0 and result.chunks:
            row = 0
        if row >= 0:
            self.table.selectRow(row)
            self._show_current()
        elif not self.editing:
            # (under a draft the pane stays: a page that came back without the chunk being
            # edited — deleted by another client, the search matching nothing else — emptied
            # the editor, and the draft was lost; a clean-clone CI run)
            self.detail = None
            self.pane.show_nothing()

    def _page(self, step: int) -> None:
        if step > 0 and self.next_cursor is not None:
            self.cursors.append(self.next_cursor)
        elif step < 0 and len(self.cursors) > 1:
            self.cursors.pop()
        else:
            return
        self.detail = None
        self.reload()

    def _on_changed(self, params: dict[str, Any]) -> None:
        """Another client or a sync changed this library: refresh, but never under a draft."""
        if self._closed or self.editing or self.library_id not in params.get("libraryIds", []):
            return
        if params.get("documents") and params.get("method") not in (
            CHUNK_UPDATE.name,
            CHUNK_DELETE.name,
        ):
            self.reload()

    def current_chunk(self) -> k.ChunkSummary | None:
        index = self.table.currentIndex()
        return self.model.row_at(index.row()) if index.isValid() else None

    def _row_changed(self) -> None:
        if not self._applying:
            chunk = self.current_chunk()
            self._moved_to = chunk.id if chunk is not None else None
        self._show_current()

    def _show_current(self) -> None:
        chunk = self.current_chunk()
        if chunk is None or self.editing:
            return
        request = k.ChunkRequest(
            library_id=self.library_id, document_id=self.document_id, chunk_id=chunk.id
        )
        self._call(CHUNK_GET, request, self._details.latest(self._got_detail))

    def _got_detail(self, result: k.ChunkDetail | None, error: KbError | None) -> None:
        if self.editing:
            return
        if result is None:
            self.pane.show_error(error)
            return
        current = self.current_chunk()
        if current is not None and current.id != result.chunk.id:
            return  # an answer for a row the user has already left (reads run in parallel)
        self.detail = result
        self.pane.show_chunk(result)
        self.shown.emit()

    # -- editing -------------------------------------------------------------------------------
    @property
    def editing(self) -> bool:
        """A draft is open in the pane (the table, search and paging wait)."""
        return self.pane.editing

    def _set_editing(self, on: bool) -> None:
        self.pane.set_editing(on, self.detail is not None)
        for w in (self.table, self.search, self.role_box):
            w.setEnabled(not on)
        self.pager.prev_button.setEnabled(not on and len(self.cursors) > 1)
        self.pager.next_button.setEnabled(not on and self.next_cursor is not None)

    def start_edit(self) -> None:
        if self.detail is None or self.editing:
            return
        self._set_editing(True)
        self.pane.editor.moveCursor(QtGui.QTextCursor.MoveOperation.End)
        self.pane.editor.setFocus()

    def cancel_edit(self) -> None:
        if self.detail is not None:
            self.pane.editor.setPlainText(self.detail.content)
        self.pane.error_label.hide()
        self._set_editing(False)
        self.pane.edit_button.setFocus()

    def draft_changed(self) -> bool:
        return self.editing and self.detail is not None and self.pane.draft() != self.detail.content

    def save(self) -> None:
        if not self.editing or self.detail is None or not self.pane.save_button.isEnabled():
            return
        chunk = self.detail.chunk
        request = k.ChunkUpdateRequest(
            library_id=self.library_id,
            document_id=self.document_id,
            chunk_id=chunk.id,
            content=self.pane.draft(),
        )
        self.pane.save_button.setEnabled(False)
        self._call(CHUNK_UPDATE, request, self._saved)

    def _saved(self, result: k.ChunkUpdateResponse | None, error: KbError | None) -> None:
        if result is None:
            # the draft stays in the editor, in edit mode, with the reason beside it
            self.pane.show_error(error)
            self.pane.count()
            self.pane.editor.setFocus()
            return
        self.detail = None
        self._set_editing(False)
        self.pane.error_label.hide()
        self.notice.emit(
            tr("chunks.saved", label=chunk_label(result.chunk))
            + " "
            + tr(f"chunks.vector.{result.vector}")
        )
        self.reload(select=result.chunk.id)
        self.pane.edit_button.setFocus()

    # -- enable / disable ----------------------------------------------------------------------
    def set_enabled(self, on: bool) -> None:
        if self.detail is None:
            return
        chunk = self.detail.chunk
        confirmed = chunk.enabled
        request = k.ChunkUpdateRequest(
            library_id=self.library_id, document_id=self.document_id, chunk_id=chunk.id, enabled=on
        )

        def done(result: k.ChunkUpdateResponse | None, error: KbError | None) -> None:
            if result is None:
                self.pane.switch.set_quietly(confirmed)  # the last confirmed state
                self.pane.show_error(error)
                return
            key = "chunks.enabled_now" if on else "chunks.disabled_now"
            self.notice.emit(tr(key, label=chunk_label(result.chunk)))
            self.reload(select=result.chunk.id)

        self._call(CHUNK_UPDATE, request, done)

    # -- delete --------------------------------------------------------------------------------
    def delete(self) -> None:
        if self.detail is None or self.editing:
            return
        chunk = self.detail.chunk
        label = chunk_label(chunk)
        text = delete_text(chunk, self.document_path, self.info)
        box = confirm_action(
            self, tr("chunks.delete.title"), text, tr("chunks.delete.confirm", label=label)
        )
        self.confirm_box = box
        box.finished.connect(lambda _r: self._delete_answered(box, chunk))
        box.open()

    def _delete_answered(self, box: QtWidgets.QMessageBox, chunk: k.ChunkSummary) -> None:
        self.confirm_box = None
        if box.clickedButton() is not box.property("confirmButton"):
            self.table.setFocus()
            return
        request = k.ChunkRequest(
            library_id=self.library_id, document_id=self.document_id, chunk_id=chunk.id
        )

        def done(result: k.ChunkDeleteResponse | None, error: KbError | None) -> None:
            if result is None:
                self.pane.show_error(error)
                return
            message = tr("chunks.deleted", label=chunk_label(chunk))
            if result.document.retrievable_chunks == 0:
                message += " " + tr("chunks.no_retrievable")
            self.notice.emit(message)
            self.detail = None
            self.reload()
            self.table.setFocus()

        self._call(CHUNK_DELETE, request, done)

    # -- closing -------------------------------------------------------------------------------
    def reject(self) -> None:
        """Escape and Close: an unsaved draft is not thrown away without asking."""
        if self.draft_changed():
            answer = QtWidgets.QMessageBox.question(
                self,
                tr("chunks.discard.title"),
                tr("chunks.discard.text"),
                QtWidgets.QMessageBox.StandardButton.Discard
                | QtWidgets.QMessageBox.StandardButton.Cancel,
                QtWidgets.QMessageBox.StandardButton.Cancel,
            )
            if answer != QtWidgets.QMessageBox.StandardButton.Discard:
                self.pane.editor.setFocus()
                return
        super().reject()

    def show_replaced(self) -> None:
        """The edits the file's new text replaced, in full; "Dismiss them" forgets them."""
        if not self.replaced:
            return
        box = self.confirm_box = replaced_box(self, self.replaced)

        def answered(_result: int) -> None:
            self.confirm_box = None
            if box.clickedButton() is box.property("confirmButton"):
                ids = {"library_id": self.library_id, "document_id": self.document_id}
                request = k.ReplacedDismissRequest(**ids)
                self.link.call(CHUNKS_DISMISS_REPLACED, request, lambda _r, _e: self.reload())

        box.finished.connect(answered)
        box.open()
