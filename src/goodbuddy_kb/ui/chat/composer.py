"""The chat's input row: the scope button, the message box (Enter sends, Shift+Enter starts a
new line), Send and Stop, and the line above them saying why a message cannot be sent or why
sending failed. It emits what the person asked for; the chat view sends."""

from __future__ import annotations

from pydantic import ValidationError

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts.errors import invalid_request_from
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error


class Composer(QtWidgets.QWidget):
    """Scope button, message box, Send, Stop; the error line above them."""

    send_requested = QtCore.Signal()
    stop_requested = QtCore.Signal()
    scope_requested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.input = QtWidgets.QPlainTextEdit()
        self.input.setAccessibleName(tr("chat.input"))
        self.input.setPlaceholderText(tr("chat.input"))
        self.input.setMaximumHeight(64)
        self.input.setTabChangesFocus(True)
        self.input.installEventFilter(self)  # Enter sends, Shift+Enter starts a new line
        #: The words typed and not sent in each conversation left (by its id).
        self._drafts: dict[str, str] = {}
        self.scope_button = QtWidgets.QPushButton()
        self.scope_button.setAccessibleName(tr("chat.scope.title"))
        self.scope_button.clicked.connect(lambda _c=False: self.scope_requested.emit())
        self.send_button = QtWidgets.QPushButton(tr("chat.send"))
        self.send_button.setAccessibleName(tr("chat.send"))
        self.send_button.clicked.connect(lambda _c=False: self.send_requested.emit())
        self.stop_button = QtWidgets.QPushButton(tr("chat.stop"))
        self.stop_button.setAccessibleName(tr("chat.stop"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(lambda _c=False: self.stop_requested.emit())
        self.error = QtWidgets.QLabel()
        self.error.setObjectName("fieldError")
        self.error.setWordWrap(True)
        self.error.setAccessibleName(tr("chat.input"))
        self.error.hide()
        #: A plain remark on what the last request did (not a failure), e.g. that a regenerated
        #: answer came out the same; gone at the next send.
        self.remark = QtWidgets.QLabel()
        self.remark.setObjectName("muted")
        self.remark.setWordWrap(True)
        self.remark.hide()
        inputs = QtWidgets.QHBoxLayout()
        inputs.addWidget(self.scope_button)
        inputs.addWidget(self.input, 1)
        inputs.addWidget(self.send_button)
        inputs.addWidget(self.stop_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.error)
        layout.addWidget(self.remark)
        layout.addLayout(inputs)
        #: A reply is on its way (Stop, not Send).
        self._busy = False
        #: A chat model is set up (else an answer is the passages found).
        self.model = True
        # Send only with something to send (it stood enabled over an empty box and did nothing)
        self.input.textChanged.connect(self._follow_text)
        self._follow_text()

    def _follow_text(self) -> None:
        self.send_button.setEnabled(not self._busy and bool(self.input.toPlainText().strip()))

    def show_model(self, configured: bool) -> None:
        """With no chat model the box says beforehand what a question gives and where a model
        is set up; with one, it asks for the message."""
        self.model = configured
        text = tr("chat.input" if configured else "chat.input.no_model")
        self.input.setPlaceholderText(text)
        self.input.setToolTip("" if configured else text)

    def switch_draft(self, old: str | None, new: str | None) -> None:
        """Each conversation keeps the words typed in it and not sent: a draft followed the
        person into the next conversation, to be sent there (a helper's try). Leaving none
        (a blank chat, the window's start) the words stay with the one opened."""
        if old is None or old == new:
            return
        self._drafts[old] = self.input.toPlainText()
        self.input.setPlainText(self._drafts.pop(new, "") if new is not None else "")

    def busy(self, on: bool) -> None:
        """A reply is on its way: Stop, not Send."""
        self._busy = on
        self._follow_text()
        had_focus = self.stop_button.hasFocus()
        self.stop_button.setEnabled(on)
        if had_focus and not on:
            # the focus stays in the chat, in the box for the next message (it went to the
            # window's "Chat" tab when Stop was greyed; a helper's try)
            self.input.setFocus()

    def say(self, message: str) -> None:
        self.remark.hide()
        self.error.setText("⚠ " + message)
        self.error.show()

    def note(self, message: str) -> None:
        """A remark, not a warning: what the last request did where the transcript cannot
        show it."""
        self.error.hide()
        self.remark.setText(message)
        self.remark.show()

    def note_same_answer(self) -> None:
        """A regenerated answer came out word for word the same (with no chat model, the same
        passages): said, since nothing in the transcript changed."""
        self.note(tr("chat.regenerate_same" if self.model else "chat.regenerate_same.quotes"))

    def clear_messages(self) -> None:
        self.error.hide()
        self.remark.hide()

    def refuse(self, exc: ValidationError) -> None:
        """Why a message cannot be sent, in the user's words (the typed text stays)."""
        fields = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")}
        if "text" in fields:
            message = tr("chat.too_long", limit=c.MAX_MESSAGE_CHARACTERS)
        elif "library_ids" in fields:
            message = tr("chat.scope.limit", limit=MAX_LIBRARIES_PER_REQUEST)
        else:
            message = tr("error.generic", message=say_error(invalid_request_from(exc)))
        self.say(message)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if (
            watched is self.input
            and event.type() == QtCore.QEvent.Type.KeyPress
            and isinstance(event, QtGui.QKeyEvent)
            and event.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)
        ):
            if event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier:
                self.input.insertPlainText("\n")
            else:
                self.send_requested.emit()
            return True
        return super().eventFilter(watched, event)


def same_answer(old: c.Message, new: c.Message) -> bool:
    """Whether a regenerated answer says nothing new: the same words, the same sources under the
    same numbers and the same searching. The words alone said "the same as before" of an answer
    that, unlike the one it replaced, had searched and cited two sources (a helper's try)."""

    def sources(m: c.Message) -> list[tuple[int | None, str]]:
        return [(x.number, x.chunk_id) for x in m.citations]

    def searched(m: c.Message) -> tuple[str, int] | None:
        return None if m.retrieval is None else (m.retrieval.status, m.retrieval.searches)

    return (
        old.content == new.content
        and sources(old) == sources(new)
        and searched(old) == searched(new)
    )
