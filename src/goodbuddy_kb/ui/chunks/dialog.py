"""The chunk maintenance dialog (PRD §8.4, US-G1–G4), opened from a document row: a paged table
of the document's chunks with a search within it, the selected chunk in full, a plain-text
editor with a live count against the limit (a failed save keeps the draft), an enable switch,
and delete with a confirmation naming the chunk. Parents and children are told apart by text.
It says, before every edit and delete, that a re-sync of a changed file re-creates chunks.
Text that came from OCR says so (``OCR`` beside the page locator, a note above the content), and
its low-confidence lines are marked in the content (a shade and a wavy underline, listed in
words above it): they stay searchable, but a person should double-check them.

Modal (the focus stays inside), Escape closes (asking first when a draft is unsaved); the
caller puts the focus back on the document row."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.limits import MAX_CHUNK_CONTENT_CHARACTERS
from goodbuddy_kb.contracts.methods import CHUNK_DELETE, CHUNK_GET, CHUNK_UPDATE, CHUNKS_LIST
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.widgets.confirm import confirm_action
from goodbuddy_kb.ui.widgets.reference_view import format_locator
from goodbuddy_kb.ui.widgets.switch import SwitchWidget
from goodbuddy_kb.ui.widgets.table_model import Column, ColumnFitter, RowsModel
from goodbuddy_kb.ui.widgets.theme import doubt_format

PAGE = 50
#: Below this width the table sits above the chunk instead of beside it.
SIDE_BY_SIDE_WIDTH = 1000


def role_text(chunk: k.ChunkSummary) -> str:
    """The chunk's place among parents and children, in words (never colour alone)."""
    if chunk.role == "parent":
        return tr("chunks.role.parent", count=chunk.child_count)
    if chunk.role == "child":
        return tr("chunks.role.child", parent=chunk.parent_ordinal)
    return tr("chunks.role.standalone")


def chunk_label(chunk: k.ChunkSummary) -> str:
    heading = " > ".join(chunk.heading_path[-2:])
    return f"#{chunk.ordinal}" + (f" ({heading})" if heading else "")


def low_confidence_lines(chunk: k.ChunkSummary) -> list[str]:
    """The chunk's OCR lines recognised with low confidence (the OCR stage lists them)."""
    lines = chunk.locator.get("lowConfidence")
    if not isinstance(lines, list):
        return []
    return [str(line) for line in lines if str(line).strip()]


def ocr_mark(chunk: k.ChunkSummary) -> str:
    """``OCR`` for text from scanned pages, with the count of its low-confidence lines."""
    if not chunk.locator.get("ocr"):
        return ""
    low = low_confidence_lines(chunk)
    return tr("chunks.ocr_low", count=len(low)) if low else tr("chunks.ocr")


def place(chunk: k.ChunkSummary) -> str:
    """Page and lines (the heading has its own column), and whether the text came from OCR."""
    where = format_locator({key: v for key, v in chunk.locator.items() if key != "headingPath"})
    mark = ocr_mark(chunk)
    return " · ".join(part for part in (where, mark) if part)


def _short(line: str, limit: int = 40) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def doubt_spans(content: str, lines: list[str]) -> list[tuple[int, int]]:
    """(start, length) of every occurrence of each line in ``content``, in order."""
    spans: set[tuple[int, int]] = set()
    for line in lines:
        needle = line.strip()
        start = content.find(needle)
        while needle and start >= 0:
            spans.add((start, len(needle)))
            start = content.find(needle, start + len(needle))
    return sorted(spans)


CHUNK_COLUMNS: list[Column[k.ChunkSummary]] = [
    Column("chunks.col.ordinal", lambda c: f"#{c.ordinal}"),
    Column("chunks.col.role", role_text),
    Column("chunks.col.heading", lambda c: " > ".join(c.heading_path), lambda c: c.preview),
    Column("chunks.col.locator", place),
    Column("chunks.col.characters", lambda c: str(c.character_count)),
    Column("chunks.col.enabled", lambda c: tr("chunks.on" if c.enabled else "chunks.off")),
    Column("chunks.col.edited", lambda c: tr("chunks.edited") if c.manually_edited else ""),
]


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
        self.editing = False
        self.confirm_box: QtWidgets.QMessageBox | None = None
        self._select_after_load: str | None = None
        self._closed = False
        #: Only the latest page and detail requests may fill the view (reads answer in parallel,
        #: so an older answer can arrive after a newer one).
        self._page_request = 0
        self._detail_request = 0
        self.model = RowsModel(CHUNK_COLUMNS, self)
        self.setWindowTitle(tr("chunks.title", path=document_path))
        self.setModal(True)
        self._build()
        self.resize(1100, 700)
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
        self.warning = QtWidgets.QLabel("⚠ " + tr("chunks.sync_warning"))
        self.warning.setWordWrap(True)
        self.warning.setObjectName("syncWarning")
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
        self.prev_button = self._button("docs.prev", lambda: self._page(-1))
        self.next_button = self._button("docs.next", lambda: self._page(1))
        self.page_label = QtWidgets.QLabel()
        top = QtWidgets.QHBoxLayout()
        top.addWidget(search_label)
        top.addWidget(self.search, 1)
        top.addWidget(self.role_box)
        top.addWidget(self.page_label)
        top.addWidget(self.prev_button)
        top.addWidget(self.next_button)

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
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._show_current())

        self.chunk_title = QtWidgets.QLabel()
        self.chunk_title.setWordWrap(True)
        self.relation = QtWidgets.QLabel()
        self.relation.setWordWrap(True)
        self.ocr_label = QtWidgets.QLabel()
        self.ocr_label.setObjectName("notice")
        self.ocr_label.setWordWrap(True)
        self.ocr_label.hide()
        self.low_label = QtWidgets.QLabel()
        self.low_label.setObjectName("ocrNote")
        self.low_label.setWordWrap(True)
        self.low_label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.low_label.hide()
        self.switch = SwitchWidget(tr("chunks.switch"))
        self.switch.toggled.connect(self.set_enabled)
        self.editor = QtWidgets.QPlainTextEdit()
        self.editor.setReadOnly(True)
        self.editor.setAccessibleName(tr("chunks.content"))
        self.editor.setTabChangesFocus(True)
        self.editor.textChanged.connect(self._count)
        self.count_label = QtWidgets.QLabel()
        self.count_label.setAccessibleName(tr("chunks.count.name"))
        self.edit_note = QtWidgets.QLabel("⚠ " + tr("chunks.edit_note"))
        self.edit_note.setWordWrap(True)
        self.edit_note.hide()
        self.error_label = QtWidgets.QLabel()
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.edit_button = self._button("chunks.edit", self.start_edit)
        self.save_button = self._button("chunks.save", self.save)
        self.cancel_edit_button = self._button("chunks.cancel_edit", self.cancel_edit)
        self.delete_button = self._button("chunks.delete", self.delete)
        self.close_button = self._button("dialog.close", self.reject)
        actions = QtWidgets.QHBoxLayout()
        for w in (self.edit_button, self.save_button, self.cancel_edit_button):
            actions.addWidget(w)
        actions.addStretch(1)
        actions.addWidget(self.delete_button)
        pane = QtWidgets.QWidget()
        pane_layout = QtWidgets.QVBoxLayout(pane)
        pane_layout.setContentsMargins(0, 0, 0, 0)
        pane_layout.addWidget(self.chunk_title)
        pane_layout.addWidget(self.relation)
        pane_layout.addWidget(self.ocr_label)
        pane_layout.addWidget(self.low_label)
        pane_layout.addWidget(self.switch)
        pane_layout.addWidget(self.editor, 1)
        count_row = QtWidgets.QHBoxLayout()
        count_row.addWidget(self.count_label)
        count_row.addStretch(1)
        pane_layout.addLayout(count_row)
        pane_layout.addWidget(self.edit_note)
        pane_layout.addWidget(self.error_label)
        pane_layout.addLayout(actions)
        self.splitter = QtWidgets.QSplitter()
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(pane)
        self.splitter.setChildrenCollapsible(False)
        bottom = QtWidgets.QHBoxLayout()
        bottom.addStretch(1)
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
        self._show_nothing()

    def _button(self, key: str, slot: Any) -> QtWidgets.QPushButton:
        button = QtWidgets.QPushButton(tr(key))
        button.setAccessibleName(tr(key))
        button.setAutoDefault(False)
        button.clicked.connect(slot)
        return button

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        wide = event.size().width() >= SIDE_BY_SIDE_WIDTH
        self.splitter.setOrientation(
            QtCore.Qt.Orientation.Horizontal if wide else QtCore.Qt.Orientation.Vertical
        )
        super().resizeEvent(event)

    def _call(self, spec: Any, request: Any, callback: Any) -> None:
        """A backend call whose answer is dropped once the dialog has closed (it is deleted
        on close; a late answer must not touch its widgets)."""

        def answer(result: Any, error: KbError | None) -> None:
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
        self._select_after_load = select or (self.detail.chunk.id if self.detail else None)
        request = k.ChunksListRequest(
            library_id=self.library_id,
            document_id=self.document_id,
            cursor=self.cursors[-1],
            limit=PAGE,
            search=self.search.text().strip() or None,
            role=self.role_box.currentData(),
        )
        self._page_request += 1
        ticket = self._page_request
        self._call(
            CHUNKS_LIST,
            request,
            lambda result, error: (
                self._got_page(result, error) if ticket == self._page_request else None
            ),
        )

    def _got_page(self, result: k.ChunksListResponse | None, error: KbError | None) -> None:
        if result is None:
            self.info_label.setText(tr("error.generic", message=error.message if error else ""))
            return
        self.info = result.document
        self.total = result.total
        self.next_cursor = result.next_cursor
        self.model.set_rows(result.chunks)  # the column fitter sizes the columns
        first = int(self.cursors[-1] or 0)
        self.page_label.setText(
            tr(
                "docs.page",
                first=first + 1 if result.chunks else 0,
                last=first + len(result.chunks),
                total=result.total,
            )
        )
        self.prev_button.setEnabled(len(self.cursors) > 1)
        self.next_button.setEnabled(result.next_cursor is not None)
        info = result.document
        text = tr(
            "chunks.info",
            title=info.title,
            retrievable=info.retrievable_chunks,
            total=info.total_chunks,
            edited=info.edited_chunks,
            disabled=info.disabled_chunks,
        )
        if info.retrievable_chunks == 0:
            text += "\n✗ " + tr("chunks.no_retrievable")
        self.info_label.setText(text)
        wanted = self._select_after_load
        row = next((i for i, c in enumerate(result.chunks) if c.id == wanted), -1)
        if row < 0 and result.chunks:
            row = 0
        if row >= 0:
            self.table.selectRow(row)
            self._show_current()
        else:
            self.detail = None
            self._show_nothing()
        self.loaded.emit()

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

    def _show_current(self) -> None:
        chunk = self.current_chunk()
        if chunk is None or self.editing:
            return
        request = k.ChunkRequest(
            library_id=self.library_id, document_id=self.document_id, chunk_id=chunk.id
        )
        self._detail_request += 1
        ticket = self._detail_request
        self._call(
            CHUNK_GET,
            request,
            lambda result, error: (
                self._got_detail(result, error) if ticket == self._detail_request else None
            ),
        )

    def _got_detail(self, result: k.ChunkDetail | None, error: KbError | None) -> None:
        if self.editing:
            return
        if result is None:
            self._show_error(error)
            return
        current = self.current_chunk()
        if current is not None and current.id != result.chunk.id:
            return  # an answer for a row the user has already left (reads run in parallel)
        self.detail = result
        chunk = result.chunk
        self.chunk_title.setText(
            f"<b>{tr('chunks.chunk', label=chunk_label(chunk))}</b> · {role_text(chunk)}"
            f" · {tr('chunks.characters', count=chunk.character_count)}"
            + (f" · {tr('chunks.edited')}" if chunk.manually_edited else "")
        )
        self.chunk_title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.relation.setText(self._relation(chunk))
        self.relation.setVisible(bool(self.relation.text()))
        self.switch.setEnabled(True)
        self.switch.set_quietly(chunk.enabled)
        self.editor.setPlainText(result.content)
        self._mark_ocr(chunk, result.content)
        self.edit_button.setEnabled(True)
        self.delete_button.setEnabled(True)
        self.error_label.hide()
        self.shown.emit()

    def _mark_ocr(self, chunk: k.ChunkSummary, content: str) -> None:
        """Say that the text came from OCR, and mark its low-confidence lines in the content."""
        from_ocr = bool(chunk.locator.get("ocr"))
        self.ocr_label.setText(tr("chunks.ocr_note") if from_ocr else "")
        self.ocr_label.setVisible(from_ocr)
        low = low_confidence_lines(chunk) if from_ocr else []
        spans = doubt_spans(content, low)
        separator = "、" if language() == "zh" else ", "
        quoted = separator.join(f"“{_short(line)}”" for line in low[:5])
        quoted += "…" if len(low) > 5 else ""
        key = "chunks.ocr_low_note_one" if len(low) == 1 else "chunks.ocr_low_note"
        self.low_label.setText(tr(key, count=len(low), lines=quoted))
        self.low_label.setVisible(bool(low))
        selections = []
        for start, length in spans:
            selection = QtWidgets.QTextEdit.ExtraSelection()
            cursor = QtGui.QTextCursor(self.editor.document())
            cursor.setPosition(start)
            cursor.setPosition(start + length, QtGui.QTextCursor.MoveMode.KeepAnchor)
            selection.cursor = cursor
            selection.format = doubt_format()
            selections.append(selection)
        self.editor.setExtraSelections(selections)

    def marked_text(self) -> list[str]:
        """The spans of the content marked as low-confidence OCR text (what a person sees)."""
        return [s.cursor.selectedText() for s in self.editor.extraSelections()]

    def _relation(self, chunk: k.ChunkSummary) -> str:
        if chunk.role == "parent":
            return "ℹ " + tr("chunks.parent_note", count=chunk.child_count)
        if chunk.role == "child":
            return "ℹ " + tr("chunks.child_note", parent=chunk.parent_ordinal)
        return ""

    def _show_nothing(self) -> None:
        self.chunk_title.setText(tr("chunks.none"))
        self.relation.setText("")
        self.relation.hide()
        self.ocr_label.hide()
        self.low_label.hide()
        self.editor.setExtraSelections([])
        self.editor.setPlainText("")
        self.switch.setEnabled(False)
        self.edit_button.setEnabled(False)
        self.delete_button.setEnabled(False)

    # -- editing -------------------------------------------------------------------------------
    def _set_editing(self, on: bool) -> None:
        self.editing = on
        self.editor.setReadOnly(not on)
        self.edit_note.setVisible(on)
        self.edit_button.setVisible(not on)
        self.save_button.setVisible(on)
        self.cancel_edit_button.setVisible(on)
        for w in (self.table, self.search, self.role_box, self.switch, self.delete_button):
            w.setEnabled(not on and (w is not self.switch or self.detail is not None))
        self.prev_button.setEnabled(not on and len(self.cursors) > 1)
        self.next_button.setEnabled(not on and self.next_cursor is not None)
        self._count()

    def start_edit(self) -> None:
        if self.detail is None or self.editing:
            return
        self._set_editing(True)
        self.editor.moveCursor(QtGui.QTextCursor.MoveOperation.End)
        self.editor.setFocus()

    def cancel_edit(self) -> None:
        if self.detail is not None:
            self.editor.setPlainText(self.detail.content)
        self.error_label.hide()
        self._set_editing(False)
        self.edit_button.setFocus()

    def draft_changed(self) -> bool:
        return (
            self.editing
            and self.detail is not None
            and self.editor.toPlainText() != self.detail.content
        )

    def _count(self) -> None:
        count = len(self.editor.toPlainText())
        over = count - MAX_CHUNK_CONTENT_CHARACTERS
        text = tr("chunks.count", count=f"{count:,}", limit=f"{MAX_CHUNK_CONTENT_CHARACTERS:,}")
        if over > 0:
            text = "✗ " + text + " — " + tr("chunks.over", over=f"{over:,}")
        elif self.editing and not self.editor.toPlainText().strip():
            text += " — " + tr("chunks.empty")
        self.count_label.setText(text)
        self.save_button.setEnabled(
            self.editing and over <= 0 and bool(self.editor.toPlainText().strip())
        )

    def save(self) -> None:
        if not self.editing or self.detail is None or not self.save_button.isEnabled():
            return
        chunk = self.detail.chunk
        request = k.ChunkUpdateRequest(
            library_id=self.library_id,
            document_id=self.document_id,
            chunk_id=chunk.id,
            content=self.editor.toPlainText(),
        )
        self.save_button.setEnabled(False)
        self._call(CHUNK_UPDATE, request, self._saved)

    def _saved(self, result: k.ChunkUpdateResponse | None, error: KbError | None) -> None:
        if result is None:
            # the draft stays in the editor, in edit mode, with the reason beside it
            self._show_error(error)
            self._count()
            self.editor.setFocus()
            return
        self.detail = None
        self._set_editing(False)
        self.error_label.hide()
        self.notice.emit(
            tr("chunks.saved", label=chunk_label(result.chunk))
            + " "
            + tr(f"chunks.vector.{result.vector}")
        )
        self.reload(select=result.chunk.id)
        self.edit_button.setFocus()

    def _show_error(self, error: KbError | None) -> None:
        self.error_label.setText("✗ " + tr("error.generic", message=error.message if error else ""))
        self.error_label.show()

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
                self.switch.set_quietly(confirmed)  # the last confirmed state
                self._show_error(error)
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
        text = tr("chunks.delete.text", label=label, path=self.document_path)
        if chunk.role == "parent" and chunk.child_count:
            text += "\n\n" + tr("chunks.delete.parent", count=chunk.child_count)
        last = (
            self.info is not None
            and chunk.enabled
            and chunk.role != "parent"
            and self.info.retrievable_chunks == 1
        )
        if last:
            text += "\n\n" + tr("chunks.delete.last")
        text += "\n\n⚠ " + tr("chunks.sync_warning")
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
                self._show_error(error)
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
                self.editor.setFocus()
                return
        super().reject()
