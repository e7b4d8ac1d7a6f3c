"""The chat view: conversations, streaming replies with a stop button, the knowledge scope
popover (libraries, mode as a segmented control, short notes), and the "Sources consulted"
list with context and open-source actions. It says "searched" only when a search happened."""

from __future__ import annotations

import html
import re
import uuid
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.errors import KbError, invalid_request_from
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.methods import (
    CHAT_SEND,
    CONVERSATION_CREATE,
    CONVERSATION_LIST,
    EMBEDDING_GET,
    LIBRARY_LIST,
    MESSAGES_LIST,
    SYSTEM_CANCEL,
    VECTORS_STATUS,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.citations import CITATION_COLUMNS, CitationsPane
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_field
from goodbuddy_kb.ui.widgets.table_model import Column, RowsModel

CONVERSATION_COLUMNS: list[Column[c.Conversation]] = [
    # Conversations made before titles came from the first question are called "New chat".
    Column("chat.conversations", lambda x: tr("chat.new") if x.title == "New chat" else x.title)
]


def link_markers(body: str, count: int) -> str:
    """Citation markers [n] (1 ≤ n ≤ count) in escaped text become links ``cite:n``."""
    return re.sub(
        r"\[(\d{1,2})\]",
        lambda m: (
            f"<a href='cite:{m.group(1)}'>[{m.group(1)}]</a>"
            if 1 <= int(m.group(1)) <= count
            else m.group(0)
        ),
        body,
    )


def status_text(message: c.Message) -> str:
    state = message.retrieval
    if state is None:
        return ""
    if state.mode == "always":
        if state.status == "degraded":
            return tr("chat.status.degraded", reason=say_field(state, "reason"))
        return tr(f"chat.status.{state.status}") if state.status != "none" else ""
    return tr("chat.status.tool", n=state.searches) if state.searches else ""


class ScopePopover(QtWidgets.QFrame):
    """Library multi-select and the retrieval mode (a two-button segmented control)."""

    changed = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, QtCore.Qt.WindowType.Popup)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.list = QtWidgets.QListWidget()
        self.list.setAccessibleName(tr("chat.scope.title"))
        self.list.itemChanged.connect(lambda _i: self.changed.emit())
        self.auto = QtWidgets.QToolButton()
        self.always = QtWidgets.QToolButton()
        self.modes = QtWidgets.QButtonGroup(self)
        for button, mode in ((self.auto, "auto"), (self.always, "always")):
            button.setText(tr(f"chat.mode.{mode}"))
            button.setAccessibleName(tr(f"chat.mode.{mode}"))
            button.setCheckable(True)
            self.modes.addButton(button)
        self.modes.setExclusive(True)
        self.auto.setChecked(True)
        self.modes.buttonToggled.connect(lambda *_: self.changed.emit())
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        segmented = QtWidgets.QHBoxLayout()
        segmented.setSpacing(0)
        segmented.addWidget(self.auto)
        segmented.addWidget(self.always)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(QtWidgets.QLabel(f"<b>{tr('chat.scope.title')}</b>"))
        layout.addWidget(self.list)
        layout.addLayout(segmented)
        layout.addWidget(self.note)

    @property
    def mode(self) -> c.RetrievalMode:
        return "always" if self.always.isChecked() else "auto"


class ChatView(QtWidgets.QWidget):
    reply_finished = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.conversation_id: str | None = None
        #: "New chat" was chosen: stay on the empty transcript until the first question.
        self._blank = False
        #: Select conversation_id once the list arrives (after taking over from another view).
        self._reopen = False
        self.request_id: str | None = None
        self.streaming_text = ""
        self.messages: list[c.Message] = []
        self.known_libraries: set[str] = set()
        self.selected: set[str] = set()
        self.names: dict[str, str] = {}
        self.conversations = RowsModel(CONVERSATION_COLUMNS, self)
        self.conversation_view = QtWidgets.QListView()
        self.conversation_view.setModel(self.conversations)
        self.conversation_view.setAccessibleName(tr("chat.conversations"))
        self.conversation_view.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.conversation_view.setHorizontalScrollBarPolicy(
            QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        self.conversation_view.selectionModel().currentChanged.connect(
            lambda *_: self._open_current()
        )
        self.new_button = QtWidgets.QPushButton(tr("chat.new"))
        self.new_button.setAccessibleName(tr("chat.new"))
        self.new_button.clicked.connect(self.new_conversation)
        self.transcript = QtWidgets.QTextBrowser()
        self.transcript.setAccessibleName(tr("top.chat"))
        # Citation markers [n] are links into "Sources consulted" (never navigated away).
        self.transcript.setOpenLinks(False)
        self.transcript.anchorClicked.connect(self._open_marker)
        # Follow a streaming answer unless the reader scrolled up to read earlier turns.
        self._follow = True
        self._link_colour = self.palette().color(QtGui.QPalette.ColorRole.Link).name()
        self._rendering = False
        self._keep: int | None = None
        bar = self.transcript.verticalScrollBar()
        bar.valueChanged.connect(self._scrolled)
        bar.rangeChanged.connect(self._range_changed)
        self.sources = CitationsPane(link)
        self.citations = self.sources.model
        self.citation_view = self.sources.table
        self.expand_button = self.sources.expand_button
        self.open_button = self.sources.open_button
        self.reference = self.sources.reference
        self.input = QtWidgets.QPlainTextEdit()
        self.input.setAccessibleName(tr("chat.input"))
        self.input.setPlaceholderText(tr("chat.input"))
        self.input.setMaximumHeight(64)
        self.input.setTabChangesFocus(True)
        self.input.installEventFilter(self)  # Enter sends, Shift+Enter starts a new line
        self.scope_button = QtWidgets.QPushButton()
        self.scope_button.setAccessibleName(tr("chat.scope.title"))
        self.scope_button.clicked.connect(self.show_scope)
        self.send_button = QtWidgets.QPushButton(tr("chat.send"))
        self.send_button.setAccessibleName(tr("chat.send"))
        self.send_button.clicked.connect(self.send)
        self.stop_button = QtWidgets.QPushButton(tr("chat.stop"))
        self.stop_button.setAccessibleName(tr("chat.stop"))
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self.send_error = QtWidgets.QLabel()
        self.send_error.setObjectName("fieldError")
        self.send_error.setWordWrap(True)
        self.send_error.setAccessibleName(tr("chat.input"))
        self.send_error.hide()
        self.popover = ScopePopover(self)
        self.popover.changed.connect(self._scope_changed)
        left = QtWidgets.QVBoxLayout()
        left.addWidget(self.new_button)
        left.addWidget(self.conversation_view, 1)
        inputs = QtWidgets.QHBoxLayout()
        inputs.addWidget(self.scope_button)
        inputs.addWidget(self.input, 1)
        inputs.addWidget(self.send_button)
        inputs.addWidget(self.stop_button)
        # The transcript gets the height; sources and their context share a pane below it.
        self.split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self.split.setChildrenCollapsible(False)
        self.split.addWidget(self.transcript)
        self.split.addWidget(self.sources)
        # Room for four citations at 800×600; the transcript keeps the larger share.
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setSizes([300, 200])
        self.transcript.setMinimumHeight(120)
        self.sources.setMinimumHeight(110)
        right = QtWidgets.QVBoxLayout()
        right.addWidget(self.split, 1)
        right.addWidget(self.send_error)
        right.addLayout(inputs)
        left_widget = QtWidgets.QWidget()
        left_widget.setLayout(left)
        left.setContentsMargins(0, 0, 0, 0)
        left_widget.setMinimumWidth(140)
        left_widget.setMaximumWidth(260)
        layout = QtWidgets.QHBoxLayout(self)
        layout.addWidget(left_widget, 1)
        layout.addLayout(right, 4)
        link.chat.connect(self._on_delta)
        link.changed.connect(self._on_changed)
        self._scope_changed()

    def _on_changed(self, params: dict[str, Any]) -> None:
        if params.get("libraries"):
            self.refresh_libraries()

    def detach(self) -> None:
        """Stop following the backend (this view is being replaced)."""
        self.link.chat.disconnect(self._on_delta)
        self.link.changed.disconnect(self._on_changed)

    def take_over(self, old: ChatView) -> None:
        """Continue where ``old`` was: its conversation, library scope, mode and typed text."""
        self.conversation_id = old.conversation_id
        self._reopen = old.conversation_id is not None
        self._blank = old._blank
        self.selected = set(old.selected)
        self.known_libraries = set(old.known_libraries)
        (self.popover.always if old.popover.mode == "always" else self.popover.auto).setChecked(
            True
        )
        self.input.setPlainText(old.input.toPlainText())

    # -- scope ---------------------------------------------------------------------------------
    def refresh_libraries(self) -> None:
        def done(result: lib.LibraryListResponse | None, error: KbError | None) -> None:
            if result is not None:
                self.set_libraries(result.libraries)

        self.link.call(LIBRARY_LIST, lib.LibraryListRequest(), done)

    def set_libraries(self, libraries: list[lib.Library]) -> None:
        """A new library joins the selection; a deleted one leaves it; cleared ones stay cleared."""
        current = {x.id for x in libraries}
        self.selected &= current
        # New libraries join in list order while there is room (at most 20 per request).
        room = MAX_LIBRARIES_PER_REQUEST - len(self.selected)
        joining = [x.id for x in libraries if x.id not in self.known_libraries]
        self.selected |= set(joining[: max(0, room)])
        self.known_libraries = current
        self.names = {x.id: x.name for x in libraries}
        self.popover.list.blockSignals(True)
        self.popover.list.clear()
        for x in libraries:
            item = QtWidgets.QListWidgetItem(x.name)
            item.setData(QtCore.Qt.ItemDataRole.UserRole, x.id)
            item.setFlags(item.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                QtCore.Qt.CheckState.Checked
                if x.id in self.selected
                else QtCore.Qt.CheckState.Unchecked
            )
            self.popover.list.addItem(item)
        self.popover.list.blockSignals(False)
        self._scope_changed(from_list=False)

    def _scope_changed(self, from_list: bool = True) -> None:
        if from_list:
            checked = [
                self.popover.list.item(i)
                for i in range(self.popover.list.count())
                if self.popover.list.item(i).checkState() == QtCore.Qt.CheckState.Checked
            ]
            ids = [item.data(QtCore.Qt.ItemDataRole.UserRole) for item in checked]
            # Past the cap, the newest ticks are undone (the earlier choice stays as it was).
            keep = [i for i in ids if i in self.selected]
            for item, library_id in zip(checked, ids, strict=True):
                if library_id not in self.selected:
                    if len(keep) < MAX_LIBRARIES_PER_REQUEST:
                        keep.append(library_id)
                    else:
                        self.popover.list.blockSignals(True)
                        item.setCheckState(QtCore.Qt.CheckState.Unchecked)
                        self.popover.list.blockSignals(False)
            self.selected = set(keep)
        self._mark_full()
        mode = tr(f"chat.mode.{self.popover.mode}")
        count = len(self.selected)
        if count == 1:
            self.scope_button.setText(tr("chat.scope_one", mode=mode))
        else:
            self.scope_button.setText(tr("chat.scope", count=count, mode=mode))
        self._notes()

    def _mark_full(self) -> None:
        """At the cap, unticked libraries are greyed out and say why."""
        full = len(self.selected) >= MAX_LIBRARIES_PER_REQUEST
        reason = tr("chat.scope.limit", limit=MAX_LIBRARIES_PER_REQUEST) if full else ""
        self.popover.list.blockSignals(True)
        for i in range(self.popover.list.count()):
            item = self.popover.list.item(i)
            blocked = full and item.checkState() != QtCore.Qt.CheckState.Checked
            flags = item.flags()
            item.setFlags(
                flags & ~QtCore.Qt.ItemFlag.ItemIsEnabled
                if blocked
                else flags | QtCore.Qt.ItemFlag.ItemIsEnabled
            )
            item.setToolTip(reason if blocked else "")
        self.popover.list.blockSignals(False)

    def _notes(self) -> None:
        """Short notes: empty scope, no embedding model, degraded vector indexes."""
        notes: dict[str, str] = {}
        if not self.selected:
            notes["empty"] = tr("chat.scope.empty")
        if len(self.selected) >= MAX_LIBRARIES_PER_REQUEST:
            notes["limit"] = tr("chat.scope.limit", limit=MAX_LIBRARIES_PER_REQUEST)

        def show() -> None:
            self.popover.note.setText("\n".join(notes[k] for k in sorted(notes)))

        def got_model(info: m.EmbeddingInfo | None, error: KbError | None) -> None:
            if info is not None and info.connection.kind == "none":
                notes["model"] = tr("chat.scope.no_embedding")
                show()

        def got_index(info: m.VectorIndexInfo | None, error: KbError | None) -> None:
            if info is not None and not info.compatible and info.reason and info.state != "none":
                notes["index"] = tr("chat.scope.degraded", reason=say_field(info, "reason"))
                show()

        show()
        self.link.call(EMBEDDING_GET, m.EmbeddingGetRequest(), got_model)
        for library_id in sorted(self.selected):
            self.link.call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library_id), got_index)

    def show_scope(self) -> None:
        self._notes()
        self.popover.move(
            self.scope_button.mapToGlobal(QtCore.QPoint(0, -self.popover.sizeHint().height()))
        )
        self.popover.show()
        self.popover.list.setFocus()

    # -- conversations ---------------------------------------------------------------------------
    def refresh(self) -> None:
        self.refresh_libraries()

        def done(result: c.ConversationListResponse | None, error: KbError | None) -> None:
            if result is not None:
                self.conversations.set_rows(result.conversations)
                rows = [x.id for x in result.conversations]
                if self._reopen and self.conversation_id in rows:
                    self._reopen = False
                    row = rows.index(self.conversation_id)
                    self.conversation_view.setCurrentIndex(self.conversations.index(row, 0))
                elif result.conversations and self.conversation_id is None and not self._blank:
                    self.conversation_view.setCurrentIndex(self.conversations.index(0, 0))

        self.link.call(CONVERSATION_LIST, c.ConversationListRequest(), done)

    def new_conversation(self) -> None:
        """A fresh, empty transcript; the conversation is created by its first question and
        titled from it (no untitled "New chat" rows pile up)."""
        self.conversation_id = None
        self._blank = True
        self.messages = []
        self.conversation_view.clearSelection()
        self.conversation_view.setCurrentIndex(QtCore.QModelIndex())
        self._render()
        self.input.setFocus()

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
                self.send()
            return True
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        # Links take the palette's colour when the HTML is parsed: a new theme redraws them.
        if event.type() == QtCore.QEvent.Type.PaletteChange and self.messages:
            link = self.palette().color(QtGui.QPalette.ColorRole.Link).name()
            if link != self._link_colour:
                self._link_colour = link
                self._render()

    def _scrolled(self, value: int) -> None:
        if not self._rendering:
            self._follow = value >= self.transcript.verticalScrollBar().maximum() - 4
            self._keep = None

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        """The text grew (laid out now or later): stay at the bottom, or where the reader is."""
        bar = self.transcript.verticalScrollBar()
        outer, self._rendering = self._rendering, True
        bar.setValue(maximum if self._follow else (self._keep or bar.value()))
        self._rendering = outer

    def _open_marker(self, url: QtCore.QUrl) -> None:
        """A click on [n] in an answer selects citation n and shows its context."""
        if url.scheme() != "cite" or not url.path().isdigit():
            return
        self.sources.select(int(url.path()) - 1)

    def _open_current(self) -> None:
        index = self.conversation_view.currentIndex()
        row = self.conversations.row_at(index.row()) if index.isValid() else None
        if row is None:
            return
        self.conversation_id = row.id

        def done(result: c.MessagesListResponse | None, error: KbError | None) -> None:
            if result is not None and row.id == self.conversation_id:
                self.messages = result.messages
                self._render()

        self.link.call(MESSAGES_LIST, c.MessagesListRequest(conversation_id=row.id), done)

    # -- sending ---------------------------------------------------------------------------------
    def send(self) -> None:
        text = self.input.toPlainText().strip()
        if not text or self.request_id is not None:
            return
        request_id = uuid.uuid4().hex
        try:
            # Checked before anything happens (a first message creates its conversation).
            request = c.SendRequest(
                conversation_id=self.conversation_id or request_id,
                text=text,
                library_ids=sorted(self.selected),
                mode=self.popover.mode,
                request_id=request_id,
            )
        except ValidationError as exc:
            self._refuse(exc)  # the typed text stays in the input
            return
        self.send_error.hide()
        if self.conversation_id is None:
            self.new_conversation_then_send(text)
            return
        self.request_id = request_id
        self.streaming_text = ""
        self.input.clear()
        self.messages.append(
            c.Message(
                id=uuid.uuid4().hex,
                conversation_id=self.conversation_id,
                role="user",
                content=text,
                state="complete",
                retrieval=None,
                citations=[],
                error=None,
                created_at="",
            )
        )
        self._render()
        self.send_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.link.call(CHAT_SEND, request, self._sent)

    def _refuse(self, exc: ValidationError) -> None:
        """Why a message cannot be sent, next to the input, in the user's words."""
        fields = {str(e["loc"][0]) for e in exc.errors() if e.get("loc")}
        if "text" in fields:
            message = tr("chat.too_long", limit=c.MAX_MESSAGE_CHARACTERS)
        elif "library_ids" in fields:
            message = tr("chat.scope.limit", limit=MAX_LIBRARIES_PER_REQUEST)
        else:
            message = tr("error.generic", message=say_error(invalid_request_from(exc)))
        self.send_error.setText("⚠ " + message)
        self.send_error.show()

    def new_conversation_then_send(self, text: str) -> None:
        def done(result: c.Conversation | None, error: KbError | None) -> None:
            if result is not None:
                self.conversation_id = result.id
                self._blank = False
                self.messages = []
                self.input.setPlainText(text)
                self.send()
                self.refresh()

        title = " ".join(text.split())
        title = title if len(title) <= 40 else title[:39] + "…"
        self.link.call(CONVERSATION_CREATE, c.ConversationCreateRequest(title=title), done)

    def stop(self) -> None:
        if self.request_id is not None:
            self.link.call(
                SYSTEM_CANCEL, r.CancelRequest(request_id=self.request_id), lambda _r, _e: None
            )

    def _on_delta(self, params: dict[str, Any]) -> None:
        if params.get("requestId") == self.request_id and self.request_id is not None:
            self.streaming_text += str(params.get("delta", ""))
            self._render()

    def _sent(self, result: c.SendResponse | None, error: KbError | None) -> None:
        self.request_id = None
        self.send_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if result is not None:
            self.messages = [m for m in self.messages if m.created_at] + [
                result.user_message,
                result.assistant_message,
            ]
            self.citations.set_rows(result.assistant_message.citations)
        elif error is not None:
            self.transcript.append(html.escape(tr("error.generic", message=say_error(error))))
        self.streaming_text = ""
        self._render()
        self.reply_finished.emit()

    def _render(self) -> None:
        parts = []
        for msg in self.messages:
            who = tr("chat.you") if msg.role == "user" else tr("chat.assistant")
            note = status_text(msg)
            suffix = ""
            if msg.state == "stopped":
                suffix = " " + tr("chat.stopped")
            elif msg.state == "failed":
                suffix = " " + tr("chat.failed", reason=say_field(msg, "error"))
            badge = f" <i>[{html.escape(note)}]</i>" if note else ""
            content = (
                c.in_one_language(msg.content, language())
                if msg.role == "assistant"
                else msg.content
            )
            if language() == "zh" and msg.content == c.NO_CHAT_MODEL_NOTES[1]:
                # "Nothing was searched": the stored Chinese half lacks the English next step.
                content += tr("chat.auto_note.next")
            body = html.escape(content).replace(chr(10), "<br>")
            if msg.role == "assistant" and msg.citations:
                body = link_markers(body, len(msg.citations))
            parts.append(f"<p><b>{who}</b>{badge}<br>{body}{html.escape(suffix)}</p>")
        if self.request_id is not None:
            streaming = html.escape(self.streaming_text).replace(chr(10), "<br>")
            parts.append(f"<p><b>{tr('chat.assistant')}</b><br>{streaming}▍</p>")
        bar = self.transcript.verticalScrollBar()
        self._keep = None if self._follow else bar.value()
        self._rendering = True
        self.transcript.setHtml("".join(parts))
        bar.setValue(bar.maximum() if self._keep is None else self._keep)
        self._rendering = False
        last = next((x for x in reversed(self.messages) if x.role == "assistant"), None)
        citations = last.citations if last else []
        if citations != self.citations.rows:  # a redraw keeps the chosen citation selected
            self.citations.set_rows(citations)

    # -- citations -------------------------------------------------------------------------------
    def expand_citation(self) -> None:
        self.sources.show_context()


__all__ = ["CITATION_COLUMNS", "CONVERSATION_COLUMNS", "ChatView", "ScopePopover", "link_markers"]
