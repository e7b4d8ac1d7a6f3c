"""The line above the transcript: the open conversation's title, the chat model its latest
answer came from (kept with the conversation, so it reads the same after a relaunch), and
"Export" (``export_requested``; the chat view asks for the file)."""

from __future__ import annotations

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.chat.conversations import conversation_title
from goodbuddy_kb.ui.i18n import tr


class ConversationHeader(QtWidgets.QWidget):
    """Title (elided by the layout, whole in its tooltip), model, Export."""

    export_requested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_label = QtWidgets.QLabel()
        self.title_label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.title_label.setMinimumWidth(40)
        self.title_label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.model_label = QtWidgets.QLabel()
        self.model_label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.export_button = QtWidgets.QPushButton(tr("chat.export.button"))
        self.export_button.setAccessibleName(tr("chat.export.title"))
        self.export_button.setToolTip(tr("chat.export.title"))
        self.export_button.clicked.connect(lambda _c=False: self.export_requested.emit())
        self.export_button.setEnabled(False)
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title_label, 1)
        layout.addWidget(self.model_label)
        layout.addWidget(self.export_button)

    def show_conversation(self, row: c.Conversation | None) -> None:
        """``row``'s title and model; None: a new chat (nothing to export yet)."""
        title = conversation_title(row) if row is not None else ""
        self.title_label.setText(title)
        self.title_label.setToolTip(title)
        model = row.chat_model if row is not None else None
        self.model_label.setText(tr("chat.model_used", model=model) if model else "")
        self.export_button.setEnabled(row is not None)
