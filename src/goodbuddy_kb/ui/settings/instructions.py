"""The library's "Assistant instructions" on the Settings tab: what the chat's assistant is
told when this library is in the chat's scope ("answer in Chinese, as the HR helpdesk"), in
any language, at most 2,000 characters (a counter says how many are left, and a longer text
is refused next to the box, never cut). Saved with the library's settings; no rebuild."""

from __future__ import annotations

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import SETTINGS_GET, SETTINGS_UPDATE
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error

LIMIT = c.MAX_ASSISTANT_INSTRUCTIONS_CHARACTERS


class InstructionsBox(QtWidgets.QGroupBox):
    """The instructions text, its counter, an inline error and "Save"."""

    #: What saving did ("saved", or why not), for the window's status line.
    notice = QtCore.Signal(str)

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(tr("chat.instructions"), parent)
        self.link = link
        self.library_id: str | None = None
        #: The text as saved (None until it came), and text not saved per library left.
        self._loaded: str | None = None
        self.kept: dict[str, str] = {}
        self.kept_note = "settings.unsaved_kept"
        self.hint = QtWidgets.QLabel(tr("chat.instructions.hint"))
        self.hint.setWordWrap(True)
        self.text = QtWidgets.QPlainTextEdit()
        self.text.setAccessibleName(tr("chat.instructions"))
        self.text.setPlaceholderText(tr("chat.instructions.placeholder"))
        self.text.setTabChangesFocus(True)
        self.text.setMinimumHeight(60)
        # as tall as the room left (its own preferred height would make the tab scroll)
        self.text.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Ignored
        )
        self.text.textChanged.connect(self._count)
        self.counter = QtWidgets.QLabel()
        self.counter.setObjectName("fieldRange")
        self.error = QtWidgets.QLabel()
        self.error.setObjectName("fieldError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.save_button = QtWidgets.QPushButton(tr("settings.save"))
        self.save_button.setAccessibleName(tr("settings.save") + " " + tr("chat.instructions"))
        self.save_button.clicked.connect(self.save)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.counter, 1)
        row.addWidget(self.save_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.hint)
        # the text takes the room the box is given (it went to the hint, which then floated in
        # an empty band above the box: found under Xvfb)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.error)
        layout.addLayout(row)
        self._count()

    def _count(self) -> None:
        used = len(self.text.toPlainText())
        self.counter.setText(tr("chat.instructions.count", n=used, limit=LIMIT))
        over = used > LIMIT
        self.counter.setProperty("over", over)
        if over:
            self.error.setText("⚠ " + tr("chat.instructions.too_long", limit=LIMIT))
        self.error.setVisible(over)
        self.save_button.setEnabled(not over and self.library_id is not None)

    def unsaved(self) -> bool:
        return self._loaded is not None and self.text.toPlainText() != self._loaded

    def discard(self) -> None:
        self.kept.clear()
        self.text.setPlainText(self._loaded or "")

    def keep_unsaved(self) -> None:
        """Text not saved stays with its library until it is shown again."""
        if self.library_id is not None and self.unsaved():
            self.kept[self.library_id] = self.text.toPlainText()

    def show_library(self, library_id: str | None) -> None:
        self.keep_unsaved()
        self.library_id, self._loaded = library_id, None
        self._count()
        if library_id is None:
            return

        def done(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and result.library_id == self.library_id:
                self._loaded = result.assistant_instructions
                kept = self.kept.pop(result.library_id, self._loaded)
                self.text.setPlainText(kept)
                if kept != self._loaded:
                    self.notice.emit(tr(self.kept_note))
                self.kept_note = "settings.unsaved_kept"

        self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id), done)

    def save(self) -> None:
        text = self.text.toPlainText().strip()
        if self.library_id is None or len(text) > LIMIT:
            return

        def done(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is None:
                message = tr("error.generic", message=say_error(error) if error else "")
                self.error.setText("⚠ " + message)
                self.error.show()
                return
            if result.library_id == self.library_id:
                self._loaded = result.assistant_instructions
                self.text.setPlainText(result.assistant_instructions)
            self.notice.emit(tr("settings.saved.instructions"))

        request = c.SettingsUpdateRequest(library_id=self.library_id, assistant_instructions=text)
        self.link.call(SETTINGS_UPDATE, request, done)
