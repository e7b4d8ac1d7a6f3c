"""The chat's list of conversations: "New chat", a search box (the backend searches titles and
message text; typing is debounced), the rows (pinned first, each with its title and its last
activity, or the matching snippet while searching), a context menu and keys (F2 renames in
place, Delete deletes), and a notice bar under the list ("Deleted …" with Undo, "Exported …").
It only emits what the person asked for; the chat view calls the backend and decides which row
is current."""

from __future__ import annotations

import math
from typing import Any

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.table_model import Column, RowsModel
from goodbuddy_kb.ui.widgets.table_text import one_line
from goodbuddy_kb.ui.widgets.times import local_time

#: How long typing rests before the search is asked (ms).
SEARCH_DEBOUNCE_MS = 250
EDIT_ROLE = QtCore.Qt.ItemDataRole.EditRole
#: How many characters of a snippet the list shows before the match.
FOCUS_LEAD = 3


def conversation_title(x: c.Conversation) -> str:
    # Conversations made before titles came from the first question are called "New chat".
    return tr("chat.new") if x.title == "New chat" else x.title


def focus(snippet: str, query: str) -> str:
    """``snippet`` starting a few characters before the first word of ``query`` in it, so a
    narrow list shows the match (the whole snippet is in the tooltip)."""
    text = one_line(snippet)
    words = query.split()
    at = text.lower().find(words[0].lower()) if words else -1
    return text if at <= FOCUS_LEAD else "…" + text[at - FOCUS_LEAD :].lstrip("…")


def conversation_text(x: c.Conversation) -> str:
    """Two lines: the title, then "Pinned" when it is, and the matching snippet while
    searching, else the last activity. (Words, not an emoji: not every system draws one.)"""
    second = x.snippet if x.snippet else local_time(x.updated_at)
    if x.pinned:
        second = f"{tr('chat.pinned')} · {second}"
    return f"{conversation_title(x)}\n{second}"


def conversation_tooltip(x: c.Conversation) -> str:
    lines = [conversation_title(x), local_time(x.updated_at)]
    if x.pinned:
        lines.append(tr("chat.pinned"))
    if x.chat_model:
        lines.append(tr("chat.model_used", model=x.chat_model))
    if x.snippet:
        lines.append(one_line(x.snippet))
    return "\n".join(lines)


CONVERSATION_COLUMNS: list[Column[c.Conversation]] = [
    Column("chat.conversations", conversation_text, conversation_tooltip)
]


class LinesDelegate(QtWidgets.QStyledItemDelegate):
    """Rows as tall as their lines are as laid out: the list's font measured two lines of
    Chinese text shorter than their fallback font draws them, and the second line — the last
    activity, what tells conversations that began with the same question apart — was
    dropped."""

    def sizeHint(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> QtCore.QSize:
        size = super().sizeHint(option, index)
        height = 0.0
        for line in str(index.data() or "").split("\n"):
            layout = QtGui.QTextLayout(line or " ", option.font)
            layout.beginLayout()
            laid = layout.createLine()
            # one line each (the view elides them): the fonts of its glyphs set its height
            laid.setLineWidth(1e6)
            layout.endLayout()
            height += laid.height()
        style = option.widget.style() if option.widget else QtWidgets.QApplication.style()
        margin = style.pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameVMargin) + 1
        return QtCore.QSize(size.width(), max(size.height(), math.ceil(height) + 2 * margin))


class ConversationsModel(RowsModel[c.Conversation]):
    """The rows; a title can be edited in place (the edit is asked of the backend through
    ``renamed``, the row shows the new title once it answers)."""

    renamed = QtCore.Signal(object, str)  # c.Conversation, the title typed

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(CONVERSATION_COLUMNS, parent)

    def flags(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> Any:
        flags = super().flags(index)
        return flags | QtCore.Qt.ItemFlag.ItemIsEditable if index.isValid() else flags

    def data(
        self,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
        role: int = int(QtCore.Qt.ItemDataRole.DisplayRole),
    ) -> Any:
        row = self.row_at(index.row()) if index.isValid() else None
        if role == EDIT_ROLE and row is not None:
            return conversation_title(row)
        return super().data(index, role)

    def setData(
        self,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
        value: Any,
        role: int = int(EDIT_ROLE),
    ) -> bool:
        row = self.row_at(index.row()) if index.isValid() else None
        title = " ".join(str(value).split())
        if role != EDIT_ROLE or row is None or not title or title == conversation_title(row):
            return False
        self.renamed.emit(row, title)
        return True


class NoticeBar(QtWidgets.QFrame):
    """One line under the list: what just happened, with "Undo" when it can be undone."""

    undo = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.undo_button = QtWidgets.QPushButton(tr("chat.undo"))
        self.undo_button.setAccessibleName(tr("chat.undo"))
        self.undo_button.clicked.connect(lambda _c=False: self.undo.emit())
        self.close_button = QtWidgets.QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAccessibleName(tr("chat.dismiss"))
        self.close_button.setToolTip(tr("chat.dismiss"))
        self.close_button.clicked.connect(self.hide)
        layout = QtWidgets.QGridLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.label, 0, 0, 1, 2)
        layout.addWidget(self.undo_button, 1, 0, QtCore.Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.close_button, 0, 2, QtCore.Qt.AlignmentFlag.AlignTop)
        self.hide()

    def say(self, text: str, undoable: bool = False) -> None:
        self.label.setText(text)
        self.label.setToolTip(text)
        self.undo_button.setVisible(undoable)
        self.show()


class ConversationList(QtWidgets.QWidget):
    """Conversations, pinned first then newest, in a narrow column (titles elided, never
    scrolled sideways), with the search box above and the notice bar below."""

    opened = QtCore.Signal(object)  # c.Conversation
    new_requested = QtCore.Signal()
    #: The search text after typing rested ("" lists every conversation).
    searched = QtCore.Signal(str)
    pin_requested = QtCore.Signal(object, bool)  # c.Conversation, pinned
    delete_requested = QtCore.Signal(object)  # c.Conversation
    export_requested = QtCore.Signal(object)  # c.Conversation

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ConversationsModel(self)
        self.renamed = self.model.renamed
        self.view = QtWidgets.QListView()
        self.view.setModel(self.model)
        self.view.setItemDelegate(LinesDelegate(self.view))
        self.view.setAccessibleName(tr("chat.conversations"))
        self.view.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed)
        self.view.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self.show_menu)
        self.view.installEventFilter(self)  # Delete deletes (F2 is the view's edit key)
        self.view.selectionModel().currentChanged.connect(lambda *_: self._open_current())
        self.menu: QtWidgets.QMenu | None = None
        self.new_button = QtWidgets.QPushButton(tr("chat.new"))
        self.new_button.setAccessibleName(tr("chat.new"))
        self.new_button.clicked.connect(lambda _checked=False: self.new_requested.emit())
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText(tr("chat.search"))
        self.search.setAccessibleName(tr("chat.search"))
        self.search.setClearButtonEnabled(True)
        self.search.setMaxLength(c.MAX_CONVERSATION_QUERY_CHARACTERS)
        self._debounce = QtCore.QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(lambda: self.searched.emit(self.query()))
        self.search.textChanged.connect(lambda _t: self._debounce.start())
        self.empty = QtWidgets.QLabel(tr("chat.search.none"))
        self.empty.setWordWrap(True)
        self.empty.hide()
        self.notice = NoticeBar()
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.notice)
        layout.setContentsMargins(0, 0, 0, 0)
        self.setMinimumWidth(140)
        self.setMaximumWidth(260)

    def query(self) -> str:
        return self.search.text().strip()

    def set_conversations(self, rows: list[c.Conversation], current: str | None) -> None:
        """The rows as listed, ``current`` marked as the open one without opening it again (a
        re-listing after a rename or a new message neither reopens nor loses it)."""
        self.view.selectionModel().blockSignals(True)
        query = self.query()
        self.model.set_rows(
            [
                x.model_copy(update={"snippet": focus(x.snippet, query)}) if x.snippet else x
                for x in rows
            ]
        )
        ids = [x.id for x in rows]
        if current in ids:
            self.view.setCurrentIndex(self.model.index(ids.index(current), 0))
        self.view.selectionModel().blockSignals(False)
        self.view.viewport().update()
        self.empty.setVisible(not rows and bool(self.query()))

    def current(self) -> c.Conversation | None:
        index = self.view.currentIndex()
        return self.model.row_at(index.row()) if index.isValid() else None

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

    def rename_current(self) -> None:
        """Edit the current row's title in place (as F2 does)."""
        index = self.view.currentIndex()
        if index.isValid():
            self.view.edit(index)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if (
            watched is self.view
            and event.type() == QtCore.QEvent.Type.KeyPress
            and isinstance(event, QtGui.QKeyEvent)
            and event.key() == QtCore.Qt.Key.Key_Delete
            and self.view.state() != QtWidgets.QAbstractItemView.State.EditingState
        ):
            row = self.current()
            if row is not None:
                self.delete_requested.emit(row)
            return True
        return super().eventFilter(watched, event)

    def show_menu(self, position: QtCore.QPoint) -> None:
        """Rename (F2), pin or unpin, export, delete (Del) for the row under the pointer."""
        index = self.view.indexAt(position)
        row = self.model.row_at(index.row()) if index.isValid() else None
        if row is None:
            return
        self.view.setCurrentIndex(index)
        menu = QtWidgets.QMenu(self)
        rename = menu.addAction(tr("chat.menu.rename"))
        rename.setShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_F2))
        rename.triggered.connect(lambda _c=False: self.rename_current())
        pin = menu.addAction(tr("chat.menu.unpin" if row.pinned else "chat.menu.pin"))
        pin.triggered.connect(lambda _c=False: self.pin_requested.emit(row, not row.pinned))
        export = menu.addAction(tr("chat.menu.export"))
        export.triggered.connect(lambda _c=False: self.export_requested.emit(row))
        menu.addSeparator()
        delete = menu.addAction(tr("chat.menu.delete"))
        delete.setShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Delete))
        delete.triggered.connect(lambda _c=False: self.delete_requested.emit(row))
        self.menu = menu
        menu.popup(self.view.viewport().mapToGlobal(position))

    def _open_current(self) -> None:
        row = self.current()
        if row is not None:
            self.opened.emit(row)
