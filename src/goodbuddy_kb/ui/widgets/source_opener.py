"""Opening a document's source from any area (the documents list, a citation, a workbench
result), and what to offer when nothing on this system can open it: "Copy path" (the path the
backend gives for that document) and "Show in folder" (the backend shows the file in its folder).
Only ids travel to the backend, which re-checks every one; the GUI never hands it a path."""

from __future__ import annotations

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import DOCUMENT_LOCATE, DOCUMENT_OPEN, DOCUMENT_REVEAL
from goodbuddy_kb.contracts.retrieval import (
    DocumentLocation,
    DocumentSourceRequest,
    ReferenceOpenResponse,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error

#: The error codes after which the file is still there but nothing here opened it: no opener,
#: or one that answered it could not (``xdg-open`` with no program for the file's type).
NO_OPENER = frozenset({"reference.no_opener", "reference.opener_failed"})


def outcome_label(opener: SourceOpener) -> QtWidgets.QLabel:
    """The line beside an "Open source" button: what opening did, where the hit is in the
    file, and what copying the path or showing the folder did; never written over the passage
    or the search's own lines."""
    label = QtWidgets.QLabel()
    label.setWordWrap(True)
    label.setTextFormat(QtCore.Qt.TextFormat.PlainText)
    opener.notice.connect(label.setText)
    return label


class SourceOpener(QtCore.QObject):
    """Opens sources through the backend; ``notice`` says what happened (a status line)."""

    notice = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget, link: BackendLink) -> None:
        super().__init__(parent)
        self._parent, self.link = parent, link
        #: The last "cannot open" box (tests press its buttons).
        self.box: QtWidgets.QMessageBox | None = None
        self.copy_button: QtWidgets.QAbstractButton | None = None
        self.reveal_button: QtWidgets.QAbstractButton | None = None

    def open_document(self, library_id: str, document_id: str, name: str) -> None:
        """Open a document's own source (a failed document's too)."""
        request = DocumentSourceRequest(library_id=library_id, document_id=document_id)

        def opened(result: ReferenceOpenResponse | None, error: KbError | None) -> None:
            if error is not None:
                self.failed(library_id, document_id, error)
            elif result is not None:
                self.notice.emit(tr("open.opened", path=name))

        self.link.call(DOCUMENT_OPEN, request, opened)

    def reveal_document(self, library_id: str, document_id: str, name: str) -> None:
        """Show a document's file in its folder (the file manager, through the backend); when
        that cannot be done here, the same offer as for opening (copy the path)."""
        request = DocumentSourceRequest(library_id=library_id, document_id=document_id)

        def shown(result: ReferenceOpenResponse | None, error: KbError | None) -> None:
            if error is not None:
                self.failed(library_id, document_id, error)
            elif result is not None:
                self.notice.emit(tr("open.shown", path=name))

        self.link.call(DOCUMENT_REVEAL, request, shown)

    def failed(self, library_id: str, document_id: str, error: KbError) -> None:
        """Opening failed: say why; when only the opener is missing, offer the alternatives."""
        message = tr("error.generic", message=say_error(error))
        if error.message_code not in NO_OPENER:
            self.notice.emit(message)
            return
        request = DocumentSourceRequest(library_id=library_id, document_id=document_id)

        def located(result: DocumentLocation | None, located_error: KbError | None) -> None:
            if result is None:
                self.notice.emit(message)
            else:
                self._offer(request, result, message)

        self.link.call(DOCUMENT_LOCATE, request, located)

    def _offer(
        self,
        request: DocumentSourceRequest,
        where: DocumentLocation,
        message: str,
        reveal: bool = True,
    ) -> None:
        """The "cannot open" box: copy the path (or address) and, for a file, show it in its
        folder; ``reveal`` False once showing it in its folder failed too (the box comes back
        saying so, with the path still to copy)."""
        box = QtWidgets.QMessageBox(self._parent)
        box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
        box.setWindowTitle(tr("open.failed.title"))
        box.setText(message)
        box.setInformativeText(where.target)
        box.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        role = QtWidgets.QMessageBox.ButtonRole.ActionRole
        is_file = where.target_kind == "file"
        self.copy_button = box.addButton(
            tr("open.copy_path" if is_file else "open.copy_address"), role
        )
        self.copy_button.clicked.connect(lambda: self._copy(box, where.target))
        self.reveal_button = None
        if is_file and reveal:
            self.reveal_button = box.addButton(tr("open.show_in_folder"), role)
            self.reveal_button.clicked.connect(lambda: self._reveal(box, request, where, message))
        close = box.addButton(tr("dialog.close"), QtWidgets.QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(self.copy_button)
        box.setEscapeButton(close)
        self.box = box
        box.open()

    def _copy(self, box: QtWidgets.QMessageBox, target: str) -> None:
        box.accept()
        QtGui.QGuiApplication.clipboard().setText(target)
        self.notice.emit(tr("open.copied", path=target))

    def _reveal(
        self,
        box: QtWidgets.QMessageBox,
        request: DocumentSourceRequest,
        where: DocumentLocation,
        message: str,
    ) -> None:
        box.accept()

        def shown(result: ReferenceOpenResponse | None, error: KbError | None) -> None:
            if error is not None:  # the path is still worth copying: the box comes back
                failed = tr("error.generic", message=say_error(error))
                # a blank line apart: the two failures read as one run-on sentence
                self._offer(request, where, message + "\n\n" + failed, reveal=False)
            else:
                self.notice.emit(tr("open.shown", path=where.target))

        self.link.call(DOCUMENT_REVEAL, request, shown)
