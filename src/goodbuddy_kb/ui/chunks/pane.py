"""The chunks dialog's chunk pane: the selected chunk in full (title, its place among parents and
children, the OCR note and its low-confidence lines marked in the content), the enable switch,
a plain-text editor with a live count against the limit (a chunk holding a table — a sheet's
rows — reads as a table until it is edited), and the edit, save, cancel and delete buttons. The pane shows and counts; the dialog decides (each button is a signal)."""

from __future__ import annotations

import html

from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.limits import MAX_CHUNK_CONTENT_CHARACTERS
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.chunks.model import (
    chunk_label,
    doubt_spans,
    family_note,
    role_text,
    short,
)
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.switch import SwitchWidget
from goodbuddy_kb.ui.widgets.table_text import has_table, text_html
from goodbuddy_kb.ui.widgets.theme import doubt_format


class ChunkPaneWidget(QtWidgets.QWidget):
    edit_requested = QtCore.Signal()
    save_requested = QtCore.Signal()
    cancel_requested = QtCore.Signal()
    delete_requested = QtCore.Signal()
    #: The switch asks to make the chunk retrievable (True) or not.
    enabled_toggled = QtCore.Signal(bool)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        #: The editor holds a draft (the dialog's edit mode).
        self.editing = False
        self._build_view()
        self._build_editor()
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.chunk_title, self.relation, self.ocr_label, self.low_label):
            layout.addWidget(widget)
        layout.addWidget(self.switch)
        layout.addWidget(self.reader, 1)
        layout.addWidget(self.editor, 1)
        count_row = QtWidgets.QHBoxLayout()
        count_row.addWidget(self.count_label)
        count_row.addStretch(1)
        layout.addLayout(count_row)
        layout.addWidget(self.edit_note)
        layout.addWidget(self.error_label)
        actions = QtWidgets.QHBoxLayout()
        for w in (self.edit_button, self.save_button, self.cancel_edit_button):
            actions.addWidget(w)
        actions.addStretch(1)
        actions.addWidget(self.delete_button)
        layout.addLayout(actions)

    def _build_view(self) -> None:
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
        self.switch.toggled.connect(self.enabled_toggled.emit)

    def _build_editor(self) -> None:
        self.editor = QtWidgets.QPlainTextEdit()
        self.editor.setReadOnly(True)
        self.editor.setAccessibleName(tr("chunks.content"))
        self.editor.setTabChangesFocus(True)
        self.editor.textChanged.connect(self.count)
        #: The content read as a table (a spreadsheet's rows); the editor shows it as text.
        self.reader = QtWidgets.QTextBrowser()
        self.reader.setAccessibleName(tr("chunks.content"))
        self.reader.hide()
        self.count_label = QtWidgets.QLabel()
        self.count_label.setAccessibleName(tr("chunks.count.name"))
        self.edit_note = QtWidgets.QLabel("⚠ " + tr("chunks.edit_note"))
        self.edit_note.setWordWrap(True)
        self.edit_note.hide()
        self.error_label = QtWidgets.QLabel()
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        self.edit_button = button("chunks.edit", self.edit_requested.emit, auto_default=False)
        self.save_button = button("chunks.save", self.save_requested.emit, auto_default=False)
        self.cancel_edit_button = button(
            "chunks.cancel_edit", self.cancel_requested.emit, auto_default=False
        )
        self.delete_button = button("chunks.delete", self.delete_requested.emit, auto_default=False)

    # -- showing -------------------------------------------------------------------------------
    def show_chunk(self, detail: k.ChunkDetail) -> None:
        chunk = detail.chunk
        # rich text: a heading's own "<" or "&" must read as written
        self.chunk_title.setText(
            f"<b>{html.escape(tr('chunks.chunk', label=chunk_label(chunk)))}</b>"
            f" · {html.escape(role_text(chunk))}"
            f" · {tr('chunks.characters', count=chunk.character_count)}"
            + (f" · {tr('chunks.edited')}" if chunk.manually_edited else "")
        )
        self.chunk_title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.relation.setText(family_note(chunk))
        self.relation.setVisible(bool(self.relation.text()))
        self.switch.setEnabled(True)
        self.switch.show()
        self.switch.set_quietly(chunk.enabled)
        self.editor.setPlainText(detail.content)
        self.reader.setHtml(text_html(detail.content))
        self._show_reader(has_table(detail.content))
        self._mark_ocr(chunk, detail.content)
        self.edit_button.setEnabled(True)
        self.delete_button.setEnabled(True)
        self.error_label.hide()

    def _mark_ocr(self, chunk: k.ChunkSummary, content: str) -> None:
        """Say that the text came from OCR, and mark its low-confidence lines in the content."""
        locator = Locator.from_wire(chunk.locator)
        from_ocr = locator.ocr
        self.ocr_label.setText(tr("chunks.ocr_note") if from_ocr else "")
        self.ocr_label.setVisible(from_ocr)
        low = locator.low_confidence if from_ocr else []
        spans = doubt_spans(content, low)
        separator = "、" if language() == "zh" else ", "
        quoted = separator.join(f"“{short(line)}”" for line in low[:5])
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

    def show_nothing(self) -> None:
        self.chunk_title.setText(tr("chunks.none"))
        self.relation.setText("")
        self.relation.hide()
        self.ocr_label.hide()
        self.low_label.hide()
        self.editor.setExtraSelections([])
        self.editor.setPlainText("")
        self._show_reader(False)
        self.switch.setEnabled(False)
        self.switch.hide()  # (a deleted chunk's greyed "on" stayed ticked under "No chunk")
        self.edit_button.setEnabled(False)
        self.delete_button.setEnabled(False)

    def show_error(self, error: KbError | None) -> None:
        self.error_label.setText("✗ " + tr("error.generic", message=error.message if error else ""))
        self.error_label.show()

    # -- editing -------------------------------------------------------------------------------
    def set_editing(self, on: bool, has_chunk: bool) -> None:
        """The editor writable with save and cancel (``on``), or read-only with edit; the
        switch and delete wait until the draft is saved or dropped."""
        self.editing = on
        self.editor.setReadOnly(not on)
        self._show_reader(not on and has_table(self.editor.toPlainText()))
        self.edit_note.setVisible(on)
        self.edit_button.setVisible(not on)
        self.save_button.setVisible(on)
        self.cancel_edit_button.setVisible(on)
        self.switch.setEnabled(not on and has_chunk)
        self.delete_button.setEnabled(not on)
        self.count()

    def _show_reader(self, on: bool) -> None:
        self.reader.setVisible(on)
        self.editor.setVisible(not on)

    def draft(self) -> str:
        return self.editor.toPlainText()

    def count(self) -> None:
        """The characters against the limit; save only for a draft within it, not empty."""
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
