"""The chat's knowledge scope popover: it owns the selection of libraries the chat searches (at
most 20 per request; past the cap the other rows are greyed out and say why), the retrieval
mode as a two-button segmented control, short notes (empty scope, no embedding model,
degraded vector indexes), and the assistant instructions of the libraries in scope. It emits ``changed`` on every change and ``edited`` when the person
changed the scope; the chat view reads ``selected``, ``mode``, ``summary()`` and ``scope()``
(which it keeps with the conversation) and gives a conversation's kept scope back with
``apply()``."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.methods import (
    EMBEDDING_GET,
    LIBRARY_LIST,
    SETTINGS_GET,
    VECTORS_STATUS,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_field
from goodbuddy_kb.ui.widgets.accessible import announce_as

CHECKED = QtCore.Qt.CheckState.Checked
#: How much of one library's instructions the popover shows (the Settings tab has them all).
INSTRUCTIONS_SHOWN = 200
LIBRARY_ID = QtCore.Qt.ItemDataRole.UserRole


class ScopePopover(QtWidgets.QFrame):
    """Library multi-select and the retrieval mode (a two-button segmented control)."""

    #: The selection or the mode changed (the chat view rewrites its scope button).
    changed = QtCore.Signal()
    #: The person ticked, cleared or switched the mode (the chat view keeps the scope).
    edited = QtCore.Signal()

    def __init__(self, link: BackendLink, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, QtCore.Qt.WindowType.Popup)
        self.link = link
        #: The libraries the chat searches, and those it has seen (a new one joins a scope that
        #: held them all).
        self.selected: set[str] = set()
        self.known_libraries: set[str] = set()
        #: The listings asked for so far (see ``refresh_libraries``).
        self._asked = 0
        #: The libraries listed, in list order (their names make the scope button's text).
        self.libraries: list[lib.Library] = []
        self._quiet = False  # set while the scope is set by the program, not the person
        #: Whether a chat model is set up: without one there is no model to decide, and every
        #: question searches first (the backend's rule), whichever mode is chosen.
        self.has_model = True
        #: The mode the person chose (kept with the conversation, shown by the buttons). A
        #: first conversation searches first: the answers of a knowledge base stand on its
        #: documents (in "Model decides" a model could answer a new user from what it knows,
        #: with no source; a helper's try); a person may still let the model decide.
        self.chosen: c.RetrievalMode = "always"
        #: The button the popover opens above.
        self._anchor: QtWidgets.QWidget | None = None
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.list = QtWidgets.QListWidget()
        self.list.setAccessibleName(tr("chat.scope.title"))
        self.list.itemChanged.connect(lambda _i: self._edited())
        self.auto = QtWidgets.QToolButton()
        self.always = QtWidgets.QToolButton()
        self.modes = QtWidgets.QButtonGroup(self)
        for button, mode in ((self.auto, "auto"), (self.always, "always")):
            button.setText(tr(f"chat.mode.{mode}"))
            button.setAccessibleName(tr(f"chat.mode.{mode}"))
            # what the choice does (two names alone left a helper guessing which one searches)
            button.setToolTip(tr(f"chat.mode.{mode}.what"))
            button.setAccessibleDescription(tr(f"chat.mode.{mode}.what"))
            button.setCheckable(True)
            # One exclusive radio group: announced as radio buttons, arrows move the choice.
            announce_as(button, QtGui.QAccessible.Role.RadioButton)
            self.modes.addButton(button)
        self.modes.setExclusive(True)
        self.always.setChecked(True)
        self.modes.buttonToggled.connect(self._toggled)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        #: The assistant instructions of the libraries in scope (hidden when none have any).
        self.instructions = QtWidgets.QLabel()
        self.instructions.setWordWrap(True)
        self.instructions.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        self.instructions.setMaximumWidth(420)
        self.instructions.hide()
        segmented = QtWidgets.QHBoxLayout()
        segmented.setSpacing(0)
        segmented.addWidget(self.auto)
        segmented.addWidget(self.always)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(QtWidgets.QLabel(f"<b>{tr('chat.scope.title')}</b>"))
        layout.addWidget(self.list)
        layout.addLayout(segmented)
        layout.addWidget(self.note)
        layout.addWidget(self.instructions)

    @property
    def mode(self) -> c.RetrievalMode:
        """The mode the person chose (what a question is sent with; without a chat model the
        backend searches first whichever it is)."""
        return self.chosen

    def _toggled(self, button: QtWidgets.QAbstractButton, on: bool) -> None:
        if on and not self._quiet:
            self.chosen = "always" if button is self.always else "auto"
            self._edited()

    def _show_mode(self) -> None:
        """The buttons show the chosen mode; with no chat model "Model decides" is greyed, as
        it is not in effect (it stood highlighted as ever beside a scope button saying "Always
        retrieve first"; a helper's try), and cannot be chosen until a model is set up."""
        self._quiet = True
        (self.always if self.chosen == "always" else self.auto).setChecked(True)
        self._quiet = False
        self.auto.setEnabled(self.has_model)
        what = "chat.mode.auto.what" if self.has_model else "chat.scope.no_chat_model"
        self.auto.setToolTip(tr(what))

    def take_over(self, old: ScopePopover) -> None:
        """The scope and mode of ``old`` (a view being replaced)."""
        self.has_model = old.has_model
        self.apply(old.scope())

    def scope(self) -> c.ChatScope:
        """The scope as a conversation keeps it."""
        return c.ChatScope(
            library_ids=sorted(self.selected),
            known_library_ids=sorted(self.known_libraries),
            mode=self.mode,
        )

    def apply(self, scope: c.ChatScope) -> None:
        """Show ``scope`` (a conversation's kept one): libraries created since it was chosen
        join it if it held every library then, deleted ones leave it; ``edited`` is not
        emitted."""
        self.selected = set(scope.library_ids)
        self.known_libraries = set(scope.known_library_ids)
        self.chosen = scope.mode
        self._show_mode()
        if self.libraries:
            self.set_libraries(self.libraries)
        else:
            self.sync(from_list=False)

    def start_fresh(self) -> None:
        """A new chat keeps the open conversation's scope and mode, except an emptied scope: it
        starts with every library (within the cap) then. A chat that searches nothing is a
        choice made for one conversation; every new chat began "No library" after it, and in
        "Always retrieve first" its first question went unsearched (a helper's try)."""
        if self.selected or not self.libraries:
            return
        ids = [x.id for x in self.libraries]
        self.apply(
            c.ChatScope(
                library_ids=ids[:MAX_LIBRARIES_PER_REQUEST], known_library_ids=ids, mode=self.mode
            )
        )

    def _edited(self) -> None:
        if self._quiet:
            return
        self.sync()
        self.edited.emit()

    @property
    def effective_mode(self) -> c.RetrievalMode:
        """The mode a question is answered in: "always" while no chat model is set up."""
        return self.mode if self.has_model else "always"

    def set_model(self, configured: bool) -> None:
        """Whether a chat model is set up. Without one the scope button says what happens (every
        question searches first; it said "Model decides" with no model to decide) and the
        popover says why; the chosen mode is kept for when a model is set up."""
        if configured == self.has_model:
            return
        self.has_model = configured
        self._show_mode()
        self.sync(from_list=False)

    def summary(self) -> str:
        """The scope button's text: the libraries by name (or the first and "+n"), the mode
        questions are answered in."""
        mode = tr(f"chat.mode.{self.effective_mode}")
        names = [x.name for x in self.libraries if x.id in self.selected]
        if not self.selected:
            return tr("chat.scope.none", mode=mode)
        if len(names) != len(self.selected):  # the list has not arrived yet
            count = len(self.selected)
            return (
                tr("chat.scope_one", mode=mode)
                if count == 1
                else tr("chat.scope", count=count, mode=mode)
            )
        shown = (
            names[0] if len(names) == 1 else tr("chat.scope.more", first=names[0], n=len(names) - 1)
        )
        return tr("chat.scope.named", names=shown, mode=mode)

    def names(self) -> str:
        """Every library in the scope by name, one a line (the scope button's tooltip)."""
        return "\n".join(x.name for x in self.libraries if x.id in self.selected)

    @property
    def whole(self) -> bool:
        """The scope holds every library the conversation knew: a new library joins it."""
        return self.known_libraries <= self.selected

    # -- the libraries ----------------------------------------------------------------------------
    def refresh_libraries(self) -> None:
        self._asked += 1
        asked = self._asked

        def done(result: lib.LibraryListResponse | None, error: KbError | None) -> None:
            # Only the newest listing counts: an older answer arriving late (the backend
            # answers in parallel) would put back a list without the library just made.
            if result is not None and asked == self._asked:
                self.set_libraries(result.libraries)

        self.link.call(LIBRARY_LIST, lib.LibraryListRequest(), done)

    def set_libraries(self, libraries: list[lib.Library]) -> None:
        """A new library joins a scope that held every library the conversation knew (one the
        person never narrowed); a scope the person narrowed or emptied stays as they left it
        (creating a library once filled an emptied scope behind their back). A deleted library
        leaves the scope; cleared ones stay cleared."""
        self.libraries = list(libraries)
        now = [x.id for x in libraries]
        self.selected = set(c.scope_now(self.selected, self.known_libraries, now))
        self.known_libraries = set(now)
        self.list.blockSignals(True)
        self.list.clear()
        for x in libraries:
            item = QtWidgets.QListWidgetItem(x.name)
            item.setData(LIBRARY_ID, x.id)
            item.setFlags(item.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(CHECKED if x.id in self.selected else QtCore.Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.blockSignals(False)
        self.sync(from_list=False)

    def sync(self, from_list: bool = True) -> None:
        """Take the selection from the ticks (unless ``from_list`` is off), grey out what the
        cap leaves out, refresh the notes, and say so (``changed``)."""
        if from_list:
            self._read_ticks()
        self._mark_full()
        self.refresh_notes()
        self.changed.emit()

    def _read_ticks(self) -> None:
        checked = [
            self.list.item(i)
            for i in range(self.list.count())
            if self.list.item(i).checkState() == CHECKED
        ]
        ids = [item.data(LIBRARY_ID) for item in checked]
        # Past the cap, the newest ticks are undone (the earlier choice stays as it was).
        keep = [i for i in ids if i in self.selected]
        for item, library_id in zip(checked, ids, strict=True):
            if library_id not in self.selected:
                if len(keep) < MAX_LIBRARIES_PER_REQUEST:
                    keep.append(library_id)
                else:
                    self.list.blockSignals(True)
                    item.setCheckState(QtCore.Qt.CheckState.Unchecked)
                    self.list.blockSignals(False)
        self.selected = set(keep)

    def _mark_full(self) -> None:
        """At the cap, unticked libraries are greyed out and say why."""
        full = len(self.selected) >= MAX_LIBRARIES_PER_REQUEST
        reason = tr("chat.scope.limit", limit=MAX_LIBRARIES_PER_REQUEST) if full else ""
        self.list.blockSignals(True)
        for i in range(self.list.count()):
            item = self.list.item(i)
            blocked = full and item.checkState() != CHECKED
            flags = item.flags()
            item.setFlags(
                flags & ~QtCore.Qt.ItemFlag.ItemIsEnabled
                if blocked
                else flags | QtCore.Qt.ItemFlag.ItemIsEnabled
            )
            item.setToolTip(reason if blocked else "")
        self.list.blockSignals(False)

    # -- notes and showing ------------------------------------------------------------------------
    def refresh_notes(self) -> None:
        """Short notes: empty scope, every library (new ones join), no embedding model,
        degraded vector indexes."""
        notes: dict[str, str] = {}
        if not self.selected:
            notes["empty"] = tr("chat.scope.empty")
        elif self.libraries and self.whole:
            # what ``set_libraries`` does with a new library, said before it happens (a person
            # who ticked the only library there was read its joining as the scope widening)
            notes["every"] = tr("chat.scope.every")
        if len(self.selected) >= MAX_LIBRARIES_PER_REQUEST:
            notes["limit"] = tr("chat.scope.limit", limit=MAX_LIBRARIES_PER_REQUEST)
        if not self.has_model:
            notes["chat model"] = tr("chat.scope.no_chat_model")

        def text_of(shown: dict[str, str]) -> str:
            lines = [shown[k] for k in sorted(shown)]
            bullet = "• " if len(lines) > 1 else ""  # several notes read as a list
            return "\n".join(bullet + line for line in lines)

        def show() -> None:
            # The notes never take less room while the popup is open, and keep room for "every
            # library is selected": a tick that added or took away that line moved the rows
            # under the pointer, and the next click ticked another library (a helper's try).
            if len(self.libraries) > 1 and "every" not in notes and "empty" not in notes:
                self.note.setText(text_of({**notes, "every": tr("chat.scope.every")}))
                self._reserve(self.note)
            self.note.setText(text_of(notes))
            self._reserve(self.note)

        def got_model(info: m.EmbeddingInfo | None, error: KbError | None) -> None:
            if info is not None and info.connection.kind == "none":
                notes["model"] = tr("chat.scope.no_embedding")
                show()

        names = {x.id: x.name for x in self.libraries}
        # the libraries' lines in the order of the list above them
        position = {x.id: i for i, x in enumerate(self.libraries)}

        def got_index(
            name: str, at: int
        ) -> Callable[[m.VectorIndexInfo | None, KbError | None], None]:
            # a line per library, named (one library's answer used to replace another's)
            def got(info: m.VectorIndexInfo | None, error: KbError | None) -> None:
                if info is None or info.compatible or not info.reason or info.state == "none":
                    return
                reason = say_field(info, "reason")
                notes[f"index {at:05}"] = tr("chat.scope.degraded", name=name, reason=reason)
                show()

            return got

        show()
        self.link.call(EMBEDDING_GET, m.EmbeddingGetRequest(), got_model)
        for library_id in sorted(self.selected):
            request = m.VectorStatusRequest(library_id=library_id)
            at = position.get(library_id, len(position))
            self.link.call(VECTORS_STATUS, request, got_index(names.get(library_id, ""), at))
        self.refresh_instructions()

    def refresh_instructions(self) -> None:
        """Each library in scope with instructions: its name and (the start of) them."""
        found: dict[str, str] = {}
        names = {x.id: x.name for x in self.libraries}
        selected = set(self.selected)

        def got(result: lib.LibrarySettings | None, error: KbError | None) -> None:
            if result is None or self.selected != selected:
                return
            text = " ".join(result.assistant_instructions.split())
            if text:
                shown = text if len(text) <= INSTRUCTIONS_SHOWN else text[:INSTRUCTIONS_SHOWN] + "…"
                found[result.library_id] = f"{names.get(result.library_id, '')}: {shown}"
            lines = [found[k] for k in sorted(found, key=lambda k: names.get(k, k))]
            self.instructions.setText("\n".join([tr("chat.instructions.in_scope"), *lines]))
            self.instructions.setVisible(bool(lines))
            if self.isVisible() and self._anchor is not None:  # taller now: still above it
                self.adjustSize()
                self._place(self._anchor)

        self.instructions.hide()
        for library_id in sorted(selected):
            self.link.call(SETTINGS_GET, lib.SettingsGetRequest(library_id=library_id), got)

    def _reserve(self, label: QtWidgets.QLabel) -> None:
        """``label`` keeps at least the height of its text now (for as long as the popup is
        open)."""
        width = label.width() if self.isVisible() else self.sizeHint().width()
        needed = label.heightForWidth(max(1, width)) if label.wordWrap() else -1
        label.setMinimumHeight(max(label.minimumHeight(), needed, label.sizeHint().height()))

    def show_above(self, anchor: QtWidgets.QWidget) -> None:
        """Open just above ``anchor`` (the scope button), notes fresh, the list focused."""
        self._anchor = anchor
        self.note.setMinimumHeight(0)  # (its room is kept while open, not from one to the next)
        self.refresh_notes()
        self._place(anchor)
        self.show()
        self.adjustSize()
        self._place(anchor)  # at its real height: its hint's put it over the button once
        self.list.setFocus()

    def _place(self, anchor: QtWidgets.QWidget) -> None:
        """Its bottom on the button's top (below the button where the screen ends above)."""
        height = (
            max(self.height(), self.sizeHint().height())
            if self.isVisible()
            else (self.sizeHint().height())
        )
        top = anchor.mapToGlobal(QtCore.QPoint(0, -height))
        screen = anchor.screen().availableGeometry() if anchor.screen() else None
        if screen is not None and top.y() < screen.top():
            top = anchor.mapToGlobal(QtCore.QPoint(0, anchor.height()))
        self.move(top)
