"""What a file that cannot be read (corrupt, empty, binary) offers on the selected document's
line, instead of a retry that cannot help: "Show reason" (its details, the reason in full),
"Show in folder" (through the backend and the source opener's fallbacks: when no file manager
is here, copy the path) and, for a file or page added on its own, "Remove from library" (its
source, after a question that names it). A file inside a folder source is fixed or deleted in
its folder; the next sync follows."""

from __future__ import annotations

from collections.abc import Callable

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.documents.rebuild_actions import unreadable
from goodbuddy_kb.ui.documents.row_actions import DocumentRowActions
from goodbuddy_kb.ui.documents.source_actions import SourceActions
from goodbuddy_kb.ui.widgets.buttons import button


class FailedFileActions(QtCore.QObject):
    """The three buttons (for the document bar) and what they do for the selected document."""

    def __init__(
        self,
        parent: QtWidgets.QWidget,
        rows: DocumentRowActions,
        sources: SourceActions,
        library_id: Callable[[], str | None],
    ) -> None:
        super().__init__(parent)
        self.rows, self.sources, self.library_id = rows, sources, library_id
        self.reason_button = button("doc.failed.show_reason", rows.show_details)
        self.folder_button = button("open.show_in_folder", self.show_in_folder)
        self.remove_button = button("doc.failed.remove", self.remove)
        self.buttons = [self.reason_button, self.folder_button, self.remove_button]
        self.show_for(None)

    def show_for(self, doc: c.Document | None) -> None:
        """Visible for an unreadable file only; "Remove" where its source is that file."""
        failed = doc is not None and unreadable(doc)
        self.reason_button.setVisible(failed)
        source = self.rows.source_of(doc) if doc is not None else None
        self.folder_button.setVisible(failed and (source is None or source.kind != "web"))
        self.remove_button.setVisible(failed and source is not None and source.kind != "folder")

    def show_in_folder(self) -> None:
        doc, library_id = self.rows.document(), self.library_id()
        if doc is not None and library_id is not None:
            self.rows.opener.reveal_document(library_id, doc.id, doc.path)

    def remove(self) -> None:
        doc = self.rows.document()
        source = self.rows.source_of(doc) if doc is not None else None
        if source is not None:
            self.sources.remove(source)
