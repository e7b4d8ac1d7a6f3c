"""What a file that cannot be read (corrupt, empty, binary) offers on the selected document's
line, instead of a retry that cannot help: "Show reason" (its details, the reason in full),
"Show in folder" (through the backend and the source opener's fallbacks: when no file manager
is here, copy the path) and "Remove from library…" after a question that names it
(``knowledge:document:remove``: a folder's file is left out of the folder from now on, a file
added on its own goes with its source; the file itself is never deleted)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import DOCUMENT_REMOVE
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents.rebuild_actions import unreadable
from goodbuddy_kb.ui.documents.row_actions import DocumentRowActions
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.confirm import confirm_action


class FailedFileActions(QtCore.QObject):
    """The three buttons (for the document bar) and what they do for the selected document."""

    notice = QtCore.Signal(str)

    def __init__(
        self,
        parent: QtWidgets.QWidget,
        link: BackendLink,
        rows: DocumentRowActions,
        library_id: Callable[[], str | None],
    ) -> None:
        super().__init__(parent)
        self._parent, self.link, self.rows, self.library_id = parent, link, rows, library_id
        self.reason_button = button("doc.failed.show_reason", rows.show_details)
        self.folder_button = button("open.show_in_folder", self.show_in_folder)
        self.remove_button = button("doc.failed.remove", self.remove)
        self.buttons = [self.reason_button, self.folder_button, self.remove_button]
        #: The open "remove?" question (tests answer it).
        self.remove_box: QtWidgets.QMessageBox | None = None
        self.show_for(None)

    def show_for(self, doc: c.Document | None) -> None:
        """Visible for an unreadable file only (an attachment goes with its message)."""
        failed = doc is not None and unreadable(doc)
        source = self.rows.source_of(doc) if doc is not None else None
        self.reason_button.setVisible(failed)
        self.folder_button.setVisible(failed and (source is None or source.kind != "web"))
        self.remove_button.setVisible(failed and doc is not None and doc.message_path is None)

    def show_in_folder(self) -> None:
        doc, library_id = self.rows.document(), self.library_id()
        if doc is not None and library_id is not None:
            self.rows.opener.reveal_document(library_id, doc.id, doc.path)

    def remove(self) -> None:
        doc, library_id = self.rows.document(), self.library_id()
        source = self.rows.source_of(doc) if doc is not None else None
        if doc is None or library_id is None:
            return
        name = readable_path(doc.path)
        if source is not None and source.kind == "folder":
            folder = Path(source.location).name or source.location
            text = tr("doc.remove.folder_text", name=name, folder=folder)
        else:
            text = tr("doc.remove.source_text", name=name)
        box = confirm_action(
            self._parent, tr("doc.remove.title"), text, tr("doc.remove.confirm", name=name)
        )
        self.remove_box = box

        def answered() -> None:
            self.remove_box = None
            if box.clickedButton() is box.property("confirmButton"):
                request = c.DocumentRemoveRequest(library_id=library_id, document_id=doc.id)
                self.link.call(DOCUMENT_REMOVE, request, lambda r, e: self._removed(name, e))

        box.finished.connect(lambda _r: answered())
        box.open()

    def _removed(self, name: str, error: KbError | None) -> None:
        if error is not None:
            self.notice.emit(tr("error.generic", message=say_error(error)))
        else:
            self.notice.emit(tr("doc.removed", name=name))
