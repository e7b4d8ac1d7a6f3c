"""What a person does with a whole conversation or one answer, through the backend: rename,
pin, delete (after a confirmation, with "Undo" in the list's notice bar, which restores it),
export to Markdown or HTML (the save dialog chooses the file; the backend writes it), and copy
one answer with its numbered sources to the clipboard. The chat view lists the conversations
again on ``changed`` and leaves or opens one on ``deleted`` and ``restored``."""

from __future__ import annotations

from pathlib import Path

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import conversations as cv
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CONVERSATION_DELETE,
    CONVERSATION_EXPORT,
    CONVERSATION_PIN,
    CONVERSATION_RENAME,
    CONVERSATION_RESTORE,
    MESSAGE_COPY,
)
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.conversations import ConversationList, conversation_title
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.i18n.messages import say_error

#: The save dialog's filters, by the format each writes.
EXPORT_SUFFIX: dict[cv.ExportFormat, str] = {"markdown": ".md", "html": ".html"}


def export_format(path: str, chosen_filter: str) -> cv.ExportFormat:
    """The format a save dialog's answer asks for: the file's suffix, else the filter chosen."""
    suffix = Path(path).suffix.lower()
    if suffix in (".html", ".htm"):
        return "html"
    if suffix in (".md", ".markdown"):
        return "markdown"
    return "html" if chosen_filter == tr("chat.export.html") else "markdown"


class ConversationActions(QtCore.QObject):
    """Rename, pin, delete and undo, export, copy: each one backend call, its outcome said in
    the list's notice bar."""

    #: The list should be asked again (a title, a pin, a deletion changed it).
    changed = QtCore.Signal()
    deleted = QtCore.Signal(str)  # conversation id
    restored = QtCore.Signal(object)  # c.Conversation
    exported = QtCore.Signal(str)  # the path written ("" when it failed)
    copied = QtCore.Signal(str)  # the text put on the clipboard

    def __init__(
        self, link: BackendLink, conversations: ConversationList, parent: QtWidgets.QWidget
    ) -> None:
        super().__init__(parent)
        self.link = link
        self.window = parent
        self.conversations = conversations
        self.notice = conversations.notice
        #: The open delete confirmation (tests and the keyboard answer it).
        self.confirm_box: QtWidgets.QMessageBox | None = None
        #: The conversation "Undo" brings back.
        self.last_deleted: c.Conversation | None = None
        conversations.renamed.connect(self.rename)
        conversations.pin_requested.connect(self.pin)
        conversations.delete_requested.connect(self.confirm_delete)
        conversations.export_requested.connect(lambda row: self.choose_export(row.id, row.title))
        self.notice.undo.connect(self.undo)

    def take_over(self, old: ConversationActions) -> None:
        """A view being replaced (a language switch) had just deleted one: Undo stays."""
        self.last_deleted = old.last_deleted
        undo = not old.notice.isHidden() and not old.notice.undo_button.isHidden()
        if old.last_deleted is not None and undo:
            title = conversation_title(old.last_deleted)
            self.notice.say(tr("chat.deleted", title=title), undoable=True)

    def _failed(self, error: KbError | None, key: str = "chat.action.failed") -> None:
        self.notice.say(tr(key, reason=say_error(error) if error else ""))

    def rename(self, row: c.Conversation, title: str) -> None:
        def done(result: c.Conversation | None, error: KbError | None) -> None:
            if result is None:
                self._failed(error, "chat.rename.failed")
            self.changed.emit()

        title = title[:200]
        self.link.call(
            CONVERSATION_RENAME,
            c.ConversationRenameRequest(conversation_id=row.id, title=title),
            done,
        )

    def pin(self, row: c.Conversation, pinned: bool) -> None:
        def done(result: c.Conversation | None, error: KbError | None) -> None:
            if result is None:
                self._failed(error)
            self.changed.emit()

        request = c.ConversationPinRequest(conversation_id=row.id, pinned=pinned)
        self.link.call(CONVERSATION_PIN, request, done)

    def confirm_delete(self, row: c.Conversation) -> None:
        """Ask first (the conversation's title in the question); Delete is not the default."""
        box = QtWidgets.QMessageBox(self.window)
        box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
        box.setWindowTitle(tr("chat.delete.title"))
        box.setText(tr("chat.delete.text", title=conversation_title(row)))
        delete = box.addButton(
            tr("chat.menu.delete"), QtWidgets.QMessageBox.ButtonRole.DestructiveRole
        )
        cancel = box.addButton(tr("dialog.cancel"), QtWidgets.QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(cancel)
        box.setProperty("deleteButton", delete)
        box.finished.connect(lambda _r: self.delete(row) if box.clickedButton() is delete else None)
        self.confirm_box = box
        box.open()

    def delete(self, row: c.Conversation) -> None:
        def done(result: c.ConversationDeleteResponse | None, error: KbError | None) -> None:
            if result is None:
                self._failed(error)
                return
            self.last_deleted = row
            self.notice.say(tr("chat.deleted", title=conversation_title(row)), undoable=True)
            self.deleted.emit(row.id)
            self.changed.emit()

        request = c.ConversationDeleteRequest(conversation_id=row.id)
        self.link.call(CONVERSATION_DELETE, request, done)

    def undo(self) -> None:
        """Bring the last deleted conversation back (the backend purges it only at its next
        start)."""
        row = self.last_deleted
        if row is None:
            return

        def done(result: c.Conversation | None, error: KbError | None) -> None:
            if result is None:
                self._failed(error)
                return
            self.last_deleted = None
            self.notice.hide()
            self.restored.emit(result)
            self.changed.emit()

        request = c.ConversationRestoreRequest(conversation_id=row.id)
        self.link.call(CONVERSATION_RESTORE, request, done)

    def choose_export(self, conversation_id: str, title: str) -> None:
        """The save dialog (Markdown or HTML), then the backend writes the file."""
        name = "".join(ch for ch in title if ch.isalnum() or ch in " -_").strip()[:60]
        default = str(Path.home() / f"{name or 'conversation'}.md")
        filters = f"{tr('chat.export.markdown')};;{tr('chat.export.html')}"
        path, chosen = QtWidgets.QFileDialog.getSaveFileName(
            self.window, tr("chat.export.title"), default, filters
        )
        if path:
            self.export_to(conversation_id, path, export_format(path, chosen))

    def export_to(self, conversation_id: str, path: str, format: cv.ExportFormat) -> None:
        def done(result: cv.ConversationExportResponse | None, error: KbError | None) -> None:
            if result is None:
                self._failed(error, "chat.export.failed")
                self.exported.emit("")
                return
            self.notice.say(tr("chat.export.done", path=result.path, count=result.message_count))
            self.exported.emit(result.path)

        if not Path(path).suffix:
            path += EXPORT_SUFFIX[format]
        request = cv.ConversationExportRequest(
            conversation_id=conversation_id,
            format=format,
            path=str(Path(path).absolute()),
            overwrite=True,  # the save dialog has asked before replacing a file
            language=_reader(),  # its labels and notes in the window's language
        )
        self.link.call(CONVERSATION_EXPORT, request, done)

    def copy(self, message_id: str, with_sources: bool = True) -> None:
        """One answer with its numbered sources, as the backend renders it, on the clipboard
        (``with_sources`` off: the answer had none, and the notice does not claim any)."""

        def done(result: cv.MessageCopyResponse | None, error: KbError | None) -> None:
            if result is None:
                self._failed(error)
                return
            QtWidgets.QApplication.clipboard().setText(result.text)
            self.notice.say(tr("chat.copied" if with_sources else "chat.copied_plain"))
            self.copied.emit(result.text)

        request = cv.MessageCopyRequest(
            message_id=message_id, format="markdown", language=_reader()
        )
        self.link.call(MESSAGE_COPY, request, done)


def _reader() -> cv.ReaderLanguage:
    """The window's language, for what the backend renders for the person to read."""
    return "zh" if language() == "zh" else "en"
