"""The chat view: conversations (the list in ``conversations.py``; rename, pin, delete and
undo, export and copy in ``manage.py``), streaming replies with a stop button and "Regenerate"
on the last answer, the knowledge scope (the popover in ``scope.py`` owns which libraries are
searched and how; each conversation keeps its scope, mode and chat model in the backend, so
they survive a language or theme switch and a relaunch), and the "Sources consulted" pane
(``citations.py``), which follows the answer chosen. It says "searched" only when a search
happened. A conversation opens at its latest answer."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import conversations as cv
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_REGENERATE,
    CHAT_SEND,
    CONVERSATION_CREATE,
    CONVERSATION_LIST,
    CONVERSATION_SCOPE_UPDATE,
    MESSAGES_LIST,
    SYSTEM_CANCEL,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.citations import CitationsPane
from goodbuddy_kb.ui.chat.composer import Composer, same_answer
from goodbuddy_kb.ui.chat.conversations import ConversationList
from goodbuddy_kb.ui.chat.header import ConversationHeader
from goodbuddy_kb.ui.chat.manage import ConversationActions
from goodbuddy_kb.ui.chat.scope import ScopePopover
from goodbuddy_kb.ui.chat.transcript import (
    Stream,
    TranscriptView,
    asked_now,
    next_stream,
    parse_action,
    parse_marker,
    transcript_html,
)
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error


class ChatView(QtWidgets.QWidget):
    """Conversations on the left; the transcript, its sources and the input on the right."""

    reply_finished = QtCore.Signal()
    opened = QtCore.Signal()  # another conversation, or a new chat (the window keeps which)

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.link = link
        self.conversation_id: str | None = None
        #: "New chat" was chosen: stay on the empty transcript until the first question.
        self._blank = False
        #: Select conversation_id once the list arrives (after taking over from another view).
        self._reopen = False
        self.request_id: str | None = None
        self.asked_in: str | None = None  # the conversation request_id answers in
        self._list_on_reply = False  # a conversation was just made: listed as its answer starts
        self.stream = Stream()  # the reply arriving now
        self.messages: list[c.Message] = []
        #: The answer whose sources the pane shows (a marker was clicked); None: the latest.
        self.shown_answer: str | None = None
        #: The answer a regenerate is replacing, to say when the new one is the same.
        self._replaced: c.Message | None = None
        #: The answer whose sources were shown, its citation selected and where the reader was
        #: (None: the end), shown again by a view built anew (a language or theme switch).
        self._resume: tuple[str | None, int | None, int | None] | None = None
        #: Each conversation's scope as last kept (an edit here wins over an older listing).
        self.scopes: dict[str, c.ChatScope] = {}
        self.conversation_list = ConversationList()
        self.conversation_list.opened.connect(self._open)
        self.conversation_list.new_requested.connect(self.new_conversation)
        self.conversation_list.searched.connect(lambda _q: self.relist())
        self.manage = ConversationActions(link, self.conversation_list, self)
        self.manage.changed.connect(self.relist)
        self.manage.deleted.connect(self._deleted)
        self.manage.restored.connect(lambda row: self.reopen(row.id))
        #: The listings asked for so far (only the newest one counts).
        self._listings = 0
        self.conversations = self.conversation_list.model
        self.conversation_view = self.conversation_list.view
        self.new_button = self.conversation_list.new_button
        self.transcript = TranscriptView()
        self.transcript.setAccessibleName(tr("top.chat"))
        # Markers [n] link into "Sources consulted"; an answer's actions are links under it.
        self.transcript.anchorClicked.connect(self._open_link)
        self._link_colour = self.palette().color(QtGui.QPalette.ColorRole.Link).name()
        self.sources = CitationsPane(link)
        self.citations = self.sources.model
        self.citation_view = self.sources.table
        self.open_button = self.sources.open_button
        self.reference = self.sources.reference
        self.header = ConversationHeader()
        self.header.export_requested.connect(self.export)
        self.model_label = self.header.model_label
        self.export_button = self.header.export_button
        self.composer = Composer()
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop)
        self.composer.scope_requested.connect(self.show_scope)
        self.input = self.composer.input
        self.scope_button = self.composer.scope_button
        self.send_button = self.composer.send_button
        self.stop_button = self.composer.stop_button
        self.popover = ScopePopover(link, self)
        self.citations.library_name = lambda library_id: next(
            (x.name for x in self.popover.libraries if x.id == library_id), None
        )
        self.popover.changed.connect(self._scope_changed)
        self.popover.edited.connect(self._keep_scope)
        self._lay_out()
        link.chat.connect(self._on_delta)
        link.changed.connect(self._on_changed)
        self.popover.sync()

    def _lay_out(self) -> None:
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
        right.addWidget(self.header)
        right.addWidget(self.split, 1)
        right.addWidget(self.composer)
        layout = QtWidgets.QHBoxLayout(self)
        layout.addWidget(self.conversation_list, 1)
        layout.addLayout(right, 4)

    def _on_changed(self, params: dict[str, Any]) -> None:
        if params.get("libraries"):
            self.refresh_libraries()
        if params.get("settings"):
            self.check_model()
        if str(params.get("method", "")).startswith("chat:conversation:") and self.isVisible():
            self.relist()  # made, renamed or deleted elsewhere too (`goodbuddy-kb chat …`)
        if params.get("documents") or params.get("libraries"):  # (a library deleted too)
            self.sources.recheck(params.get("libraryIds") or [])

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        """Listed again when shown: a conversation asked from the command line meanwhile too."""
        super().showEvent(event)
        if self.link.alive:
            self.relist()

    def check_model(self) -> None:
        """Whether a chat model is set up (without one, the box says what a question will give)."""

        def done(result: c.ChatInfo | None, _error: KbError | None) -> None:
            if result is not None:
                self.composer.show_model(result.connection.kind != "none")
                self.popover.set_model(result.connection.kind != "none")

        self.link.call(CHAT_MODEL_GET, c.ChatGetRequest(), done)

    def detach(self) -> None:
        """Stop following the backend (this view is being replaced)."""
        self.link.chat.disconnect(self._on_delta)
        self.link.changed.disconnect(self._on_changed)
        self.conversation_list.searched.disconnect()  # a search typed just before asks nothing

    def take_over(self, old: ChatView) -> None:
        """Continue where ``old`` was: conversation, scope, mode, text, sources and citation."""
        self.conversation_id = old.conversation_id
        self._resume = (old.shown_answer, old.sources.current_number(), old.transcript.held())
        self._reopen = old.conversation_id is not None
        self._blank = old._blank
        self.scopes = dict(old.scopes)
        self.popover.take_over(old.popover)
        self.manage.take_over(old.manage)
        self.input.setPlainText(old.input.toPlainText())

    # -- scope ---------------------------------------------------------------------------------
    @property
    def selected(self) -> set[str]:
        """The libraries the chat searches (the scope popover owns the selection)."""
        return self.popover.selected

    def refresh_libraries(self) -> None:
        self.popover.refresh_libraries()

    def _scope_changed(self) -> None:
        self.scope_button.setText(self.popover.summary())
        self.scope_button.setToolTip(self.popover.names())

    def _keep_scope(self) -> None:
        """The person changed the scope: the open conversation keeps it (or a new chat's)."""
        if self.conversation_id is None:
            return
        scope = self.popover.scope()
        self.scopes[self.conversation_id] = scope
        request = c.ConversationScopeUpdateRequest(
            conversation_id=self.conversation_id, scope=scope
        )
        self.link.call(CONVERSATION_SCOPE_UPDATE, request, lambda _r, _e: None)

    def show_scope(self) -> None:
        self.popover.show_above(self.scope_button)

    # -- conversations ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """List the libraries and the conversations again; see whether a chat model is set up."""
        self.refresh_libraries()
        self.relist()
        self.check_model()

    def relist(self) -> None:
        """List the conversations again (those matching the search text, when there is one)."""
        self._listings += 1
        asked = self._listings
        query = self.conversation_list.query()

        def done(result: c.ConversationListResponse | None, error: KbError | None) -> None:
            # Only the newest listing counts (a search typed on, a rename since).
            if result is None or asked != self._listings:
                return
            self._listed(result.conversations, query)

        request = c.ConversationListRequest(query=query)
        self.link.call(CONVERSATION_LIST, request, done)

    def _listed(self, rows: list[c.Conversation], query: str) -> None:
        """The list as it came: the open conversation stays current (a new one is marked as
        such); after a language switch or an undo, the conversation kept opens; otherwise the
        newest opens by itself, unless searching (the person chooses then)."""
        self.conversation_list.set_conversations(rows, self.conversation_id)
        by_id = {row.id: row for row in rows}
        for row in rows:
            if row.scope is not None:
                self.scopes.setdefault(row.id, row.scope)
        if self.conversation_id in by_id:
            row = by_id[self.conversation_id]
            self.header.show_conversation(row)
            if self._reopen:
                self._reopen = False
                self._open(row)
        elif rows and (self.conversation_id is None or self._reopen) and not self._blank:
            self._reopen, self.conversation_id = False, None  # (a stale one takes no draft)
            if not query:
                self.conversation_list.select(rows[0].id)

    def _deleted(self, conversation_id: str) -> None:
        """The open conversation was deleted: an empty transcript takes its place."""
        if conversation_id == self.conversation_id:
            self.new_conversation()

    def reopen(self, conversation_id: str) -> None:
        """Open this one once listed (undone, or open at the last quit), else the newest."""
        self.conversation_id, self._blank, self._reopen = conversation_id, False, True

    def export(self) -> None:
        """The open conversation to a Markdown or HTML file (the save dialog, then the backend)."""
        row = self.conversation_list.current()
        if self.conversation_id is not None:
            title = row.title if row is not None else ""
            self.manage.choose_export(self.conversation_id, title)

    def new_conversation(self) -> None:
        """A fresh, empty transcript; its first question creates and titles the conversation."""
        self.composer.switch_draft(self.conversation_id, None)
        self.conversation_id = None
        self._blank = True
        self.messages = []
        self.shown_answer = None
        self.conversation_list.clear_current()
        self.header.show_conversation(None)
        self.opened.emit()
        self.popover.start_fresh()
        self._render()
        self.input.setFocus()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        # Links take the palette's colour when the HTML is parsed: a new theme redraws them.
        if event.type() == QtCore.QEvent.Type.PaletteChange and self.messages:
            link = self.palette().color(QtGui.QPalette.ColorRole.Link).name()
            if link != self._link_colour:
                self._link_colour = link
                self._render()

    def _open_link(self, url: QtCore.QUrl) -> None:
        """A click on [n] in an answer shows that answer's sources, selects its citation n and
        shows its context; the links under an answer show its sources, copy it, regenerate it."""
        action = parse_action(url.toString())
        if action is not None:
            self._answer_action(*action)
        marker = parse_marker(url.toString())
        if marker is None:
            return
        answer_id, number = marker
        if not any(m.id == answer_id for m in self.messages):
            return
        self.shown_answer = answer_id
        self._show_sources()
        self.sources.select(number)

    def _answer_action(self, action: str, answer_id: str) -> None:
        answer = next((m for m in self.messages if m.id == answer_id), None)
        if answer is None:
            return
        if action == "sources":
            self.show_answer(answer_id)
            # something to see: the pane already showed the one answer's sources, and the click
            # changed nothing (a helper's try); its first source and its context come up
            if answer.citations and self.sources.current_number() is None:
                self.sources.select(answer.citations[0].number or 1)
            self.sources.table.setFocus()
        elif action == "copy":
            self.manage.copy(answer_id, with_sources=bool(answer.citations))
        elif action == "regenerate":
            self.regenerate()

    def show_answer(self, answer_id: str) -> None:
        self.shown_answer = answer_id  # the sources pane follows it
        self._show_sources()

    def _open(self, row: c.Conversation) -> None:
        """Open ``row`` at its latest answer, nothing of the one shown before kept."""
        self.composer.switch_draft(self.conversation_id, row.id)
        if row.id != self.conversation_id:
            self.messages = []
            self._render()
        self.conversation_id, self._blank, self.shown_answer = row.id, False, None
        self.opened.emit()
        self.header.show_conversation(row)
        scope = self.scopes.get(row.id, row.scope)
        if scope is not None:  # (one made before scopes were kept keeps the current scope)
            self.popover.apply(scope)
        self._load(row.id)

    def _load(self, conversation_id: str) -> None:
        """Show the conversation's messages as kept, at the latest answer."""

        def done(result: c.MessagesListResponse | None, error: KbError | None) -> None:
            if result is not None and conversation_id == self.conversation_id:
                self.messages = result.messages
                self._render(latest=True)
                resume, self._resume = self._resume, None
                if resume is not None:
                    answer, number, place = resume
                    if answer is not None and any(m.id == answer for m in self.messages):
                        self.show_answer(answer)
                    if number is not None:
                        self.sources.select(number)
                    if place is not None:
                        self.transcript.hold(place)  # where the reader was, not the end

        request = c.MessagesListRequest(conversation_id=conversation_id)
        self.link.call(MESSAGES_LIST, request, done)

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
            self.composer.refuse(exc)  # the typed text stays in the input
            return
        self.composer.clear_messages()
        if self.conversation_id is None:
            self.new_conversation_then_send(text)
            return
        self.request_id, self.asked_in = request_id, self.conversation_id
        self.stream = Stream()
        self.input.clear()
        self.messages.append(asked_now(self.conversation_id, text))
        self.shown_answer = None  # the new answer's sources, as its searches find them
        self._render(latest=True)  # the question just asked, and its answer as it comes
        self.composer.busy(True)
        self.link.call(CHAT_SEND, request, self._sent)

    def regenerate(self) -> None:
        """Ask the last question again (kept scope and mode); the input says if nothing changed."""
        answers = [m for m in self.messages if m.role == "assistant"]
        if self.conversation_id is None or self.request_id is not None or not answers:
            return
        request_id = uuid.uuid4().hex
        request = cv.RegenerateRequest(conversation_id=self.conversation_id, request_id=request_id)
        self.request_id, self.asked_in = request_id, self.conversation_id
        self.composer.clear_messages()
        self._replaced = answers[-1]
        self.stream = Stream()
        self.messages = [m for m in self.messages if m.id != answers[-1].id]  # (leaves it now)
        self.shown_answer = None
        self._render(latest=True)
        self.composer.busy(True)
        self.link.call(CHAT_REGENERATE, request, self._sent)

    def new_conversation_then_send(self, text: str) -> None:
        def done(result: c.Conversation | None, error: KbError | None) -> None:
            if result is not None:
                self.conversation_id = result.id
                if result.scope is not None:
                    self.scopes[result.id] = result.scope
                self._blank = False
                self.messages = []
                self.input.setPlainText(text)
                self.send()
                # Listed once its first question is stored (it titles it): at the first words
                # of the answer.
                self._list_on_reply = True

        # The backend titles it from the first question, with the date and time.
        request = c.ConversationCreateRequest(scope=self.popover.scope())
        self.link.call(CONVERSATION_CREATE, request, done)

    def stop(self) -> None:
        if self.request_id is not None:
            self.link.call(
                SYSTEM_CANCEL, r.CancelRequest(request_id=self.request_id), lambda _r, _e: None
            )

    def _on_delta(self, params: dict[str, Any]) -> None:
        if params.get("requestId") == self.request_id and self.request_id is not None:
            if self._list_on_reply:
                self._list_on_reply = False
                self.relist()
            self.stream = next_stream(self.stream, params)
            self._render()

    def _sent(self, result: c.SendResponse | None, error: KbError | None) -> None:
        self.request_id = None
        self.composer.busy(False)
        replaced, self._replaced = self._replaced, None
        if result is not None and result.assistant_message.conversation_id == self.conversation_id:
            sent = {result.user_message.id, result.assistant_message.id}  # (a reload: both)
            kept = [m for m in self.messages if m.created_at and m.id not in sent]
            self.messages = [*kept, result.user_message, result.assistant_message]
            self.shown_answer = None  # the new answer's sources
            if replaced is not None and same_answer(replaced, result.assistant_message):
                self.composer.note_same_answer()  # (else nothing on screen shows it ran)
        elif error is not None:  # said by the input; the transcript shows what was kept
            self.composer.say(tr("error.generic", message=say_error(error)))
            if self.conversation_id is not None:
                self._load(self.conversation_id)
        self.stream = Stream()
        self._render()
        self.reply_finished.emit()
        self.relist()  # its last activity, its chat model

    def _render(self, latest: bool = False) -> None:
        """Draw the transcript (``latest``: at its end, following the answer to come)."""
        # (another conversation opened meanwhile shows none of it: the answer streamed into it)
        asked = self.request_id is not None and self.asked_in == self.conversation_id
        streaming = self.stream.text if asked else None
        text = transcript_html(self.messages, streaming, self.stream.step)
        (self.transcript.show_latest if latest else self.transcript.show_html)(text)
        self._show_sources()

    def _show_sources(self) -> None:
        """The sources of the answer a marker was clicked in, else of the latest answer (while
        one comes, the passages its searches found, once they are found)."""
        answers = [m for m in self.messages if m.role == "assistant"]
        last = answers[-1] if answers else None
        shown = next((m for m in answers if m.id == self.shown_answer), last)
        found = self.stream.citations if self.asked_in == self.conversation_id else None
        if self.request_id is not None and self.shown_answer is None and found:
            self.sources.show_answer(found, None)
        elif shown is None or (shown is last and self.request_id is None):
            self.sources.show_answer(shown.citations if shown else [], None)
        else:  # an older answer's, or the last one's while a new one streams: "answer n"
            self.sources.show_answer(shown.citations, answers.index(shown) + 1)

    # -- citations -------------------------------------------------------------------------------
    def expand_citation(self) -> None:
        self.sources.show_context()


__all__ = ["ChatView"]
