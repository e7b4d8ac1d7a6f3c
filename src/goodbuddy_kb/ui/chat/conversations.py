"""The chat's list of conversations with "New chat" above it. It emits ``opened`` with the
conversation a person chose and ``new_requested`` for a fresh one; the chat view decides
which row is current."""

from __future__ import annotations

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.table_model import Column, RowsModel

CONVERSATION_COLUMNS: list[Column[c.Conversation]] = [
    # Conversations made before titles came from the first question are called "New chat".
    Column("chat.conversations", lambda x: tr("chat.new") if x.title == "New chat" else x.title)
]


class ConversationList(QtWidgets.QWidget):
    """Conversations, newest first, in a narrow column (titles elided, never scrolled sideways)."""

    opened = QtCore.Signal(object)  # c.Conversation
    new_requested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = RowsModel(CONVERSATION_COLUMNS, self)
        self.view = QtWidgets.QListView()
        self.view.setModel(self.model)
        self.view.setAccessibleName(tr("chat.conversations"))
        self.view.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.selectionModel().currentChanged.connect(lambda *_: self._open_current())
        self.new_button = QtWidgets.QPushButton(tr("chat.new"))
        self.new_button.setAccessibleName(tr("chat.new"))
        self.new_button.clicked.connect(lambda _checked=False: self.new_requested.emit())
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.new_button)
        layout.addWidget(self.view, 1)
        layout.setContentsMargins(0, 0, 0, 0)
        self.setMinimumWidth(140)
        self.setMaximumWidth(260)

    def set_conversations(self, rows: list[c.Conversation]) -> None:
        self.model.set_rows(rows)

    def select(self, conversation_id: str) -> bool:
        """Make ``conversation_id`` current (it opens); False when it is not listed."""
        ids = [x.id for x in self.model.rows]
        if conversation_id not in ids:
            return False
        self.view.setCurrentIndex(self.model.index(ids.index(conversation_id), 0))
        return True

    def clear_current(self) -> None:
        self.view.clearSelection()
        self.view.setCurrentIndex(QtCore.QModelIndex())

    def _open_current(self) -> None:
        index = self.view.currentIndex()
        row = self.model.row_at(index.row()) if index.isValid() else None
        if row is not None:
            self.opened.emit(row)
