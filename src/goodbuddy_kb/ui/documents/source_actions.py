"""The sources' actions of the documents pane: add a file, a folder or a web page (or drop
files and folders on the pane), sync now, watch a folder, and remove a source after a question
that names it and defaults to Cancel. The tab hands in its link, which library it shows and
which source is selected, and connects ``notice``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.formats import READABLE_SUFFIXES
from goodbuddy_kb.contracts.methods import SOURCE_ADD, SOURCE_REMOVE, SOURCE_SYNC, SOURCE_WATCH
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.tasks.follow import announce_end
from goodbuddy_kb.ui.widgets.confirm import confirm_action
from goodbuddy_kb.ui.widgets.form_dialog import FormDialog

#: What the backend reads (the one list in ``contracts/formats``), for the file chooser.
DOCUMENT_SUFFIXES = READABLE_SUFFIXES


def file_patterns() -> str:
    """The file chooser's patterns: ``*.md *.markdown …``, one per suffix the backend reads."""
    return " ".join(f"*{suffix}" for suffix in DOCUMENT_SUFFIXES)


def fit_file_columns(dialog: QtWidgets.QFileDialog) -> None:
    """Qt's widget file dialog (the native one has no such view): the name takes the room and
    size, type and date read whole instead of elided."""
    view = dialog.findChild(QtWidgets.QTreeView, "treeView")
    if view is None:
        return
    header = view.header()
    header.setStretchLastSection(False)
    header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
    for column in range(1, header.count()):
        header.setSectionResizeMode(column, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)


def dropped_sources(mime: QtCore.QMimeData) -> list[tuple[c.SourceKind, str]]:
    """Local files and folders in a drop, as (kind, absolute path)."""
    found: list[tuple[c.SourceKind, str]] = []
    for url in mime.urls():
        if not url.isLocalFile():
            continue
        path = Path(url.toLocalFile())
        if path.is_dir():
            found.append(("folder", str(path)))
        elif path.is_file():
            found.append(("file", str(path)))
    return found


def _title(menu_key: str) -> str:
    """A window's title from the menu item that opens it, without its "…" ("添加文件夹…")."""
    return tr(menu_key).rstrip("….").strip()


class SourceActions(QtCore.QObject):
    """The sources' actions of the library ``library_id()`` shows; ``current_source()`` is the
    selected source, ``parent`` the parent of the choosers and questions."""

    notice = QtCore.Signal(str)

    def __init__(
        self,
        parent: QtWidgets.QWidget,
        link: BackendLink,
        library_id: Callable[[], str | None],
        current_source: Callable[[], c.Source | None],
    ) -> None:
        super().__init__(parent)
        self._parent, self.link = parent, link
        self._library_id, self.current_source = library_id, current_source
        #: The open file or folder chooser, if any.
        self.folder_dialog: QtWidgets.QFileDialog | None = None
        #: The open "remove this source?" question, if any (default button: Cancel).
        self.remove_box: QtWidgets.QMessageBox | None = None
        #: The open "cannot add this source" box, if any.
        self.refusal_box: QtWidgets.QMessageBox | None = None

    @property
    def library_id(self) -> str | None:
        return self._library_id()

    def add_dropped(self, mime: QtCore.QMimeData) -> bool:
        """Files and folders dropped on the pane become sources; False if there are none."""
        found = dropped_sources(mime)
        if self.library_id is None or not found:
            return False
        for kind, path in found:
            self.add_source(kind, path)
        self.notice.emit(tr("sources.dropped", count=len(found)))
        return True

    # -- actions ---------------------------------------------------------------------------
    def _report(self, result: ContractModel | None, error: KbError | None) -> None:
        if error is not None:
            self.notice.emit(tr("error.generic", message=say_error(error)))

    def add_source(self, kind: c.SourceKind, location: str) -> None:
        if self.library_id is None or not location:
            return
        request = c.SourceAddRequest(library_id=self.library_id, kind=kind, location=location)

        def added(result: c.SourceAddResponse | None, error: KbError | None) -> None:
            if error is not None:
                self._refused(location, say_error(error))
            else:  # (nothing said it had been taken until its documents came)
                self._announce(location, result)

        self.link.call(SOURCE_ADD, request, added)

    def _announce(self, location: str, result: c.SourceAddResponse | None) -> None:
        """The source was taken, and then how its first sync ended (the notice of it stayed
        after the sync had ended, or a web page had failed)."""
        self.notice.emit(tr("sources.added", location=location))
        if result is not None and result.task_id:
            announce_end(self.link, result.task_id, self.notice.emit)

    def _refused(self, location: str, reason: str) -> None:
        """Why a chosen file or folder was not added, in a box the person closes: in the status
        bar the reason was cut at the window's edge and gone after a few seconds, and the
        chooser had closed, so nothing said the source was not there."""
        if self.refusal_box is not None:  # several dropped at once: one box, every reason
            self.refusal_box.setText(f"{self.refusal_box.text()}\n\n{location}\n{reason}")
            return
        box = QtWidgets.QMessageBox(self._parent)
        box.setIcon(QtWidgets.QMessageBox.Icon.Warning)
        box.setWindowTitle(tr("sources.add_refused"))
        box.setText(f"{location}\n{reason}")
        box.finished.connect(lambda _r: setattr(self, "refusal_box", None))
        self.refusal_box = box
        box.open()

    def _choose(self, kind: c.SourceKind) -> QtWidgets.QFileDialog:
        """The file chooser for a file or a folder source, open (window-modal) until answered;
        the chosen path becomes a source. Kept as ``folder_dialog`` while it is open."""
        dialog = QtWidgets.QFileDialog(self._parent, _title(f"sources.add_{kind}"))
        if kind == "folder":
            dialog.setFileMode(QtWidgets.QFileDialog.FileMode.Directory)
            dialog.setOption(QtWidgets.QFileDialog.Option.ShowDirsOnly, True)
        else:
            dialog.setFileMode(QtWidgets.QFileDialog.FileMode.ExistingFile)
            dialog.setNameFilters(
                [tr("sources.file_filter", patterns=file_patterns()), tr("sources.all_files")]
            )
        fit_file_columns(dialog)
        self.folder_dialog = dialog

        def answered(result: int) -> None:
            self.folder_dialog = None
            chosen = dialog.selectedFiles()
            if result == QtWidgets.QDialog.DialogCode.Accepted and chosen:
                self.add_source(kind, chosen[0])
            dialog.deleteLater()

        dialog.finished.connect(answered)
        dialog.open()
        return dialog

    def add_file_source(self) -> None:
        self._choose("file")

    def add_folder_source(self) -> None:
        self._choose("folder")

    def add_web_source(self) -> FormDialog | None:
        """A form for the page's address; the backend's refusal shows in it, beside what the
        person typed (it closed, the address lost, and said why only in the status bar).
        Kept as ``web_dialog`` while it is open."""
        library_id = self.library_id
        if library_id is None:
            return None
        dialog = FormDialog(_title("sources.add_web"), self._parent)
        address = QtWidgets.QLineEdit()
        address.setPlaceholderText("https://")
        dialog.add("sources.web.prompt", address)

        def build() -> c.SourceAddRequest | None:
            if not address.text().strip():
                dialog.show_error(tr("sources.web.empty"))
                return None
            return c.SourceAddRequest(
                library_id=library_id, kind="web", location=address.text().strip()
            )

        def added(result: c.SourceAddResponse | None, error: KbError | None) -> None:
            if error is not None:
                dialog.show_error(say_error(error))
            else:
                dialog.accept()
                self._announce(address.text().strip(), result)

        dialog.build = build
        dialog.submitted.connect(lambda request: self.link.call(SOURCE_ADD, request, added))
        dialog.finished.connect(lambda _r: setattr(self, "web_dialog", None))
        self.web_dialog: FormDialog | None = dialog
        dialog.open()
        return dialog

    def sync_now(self) -> None:
        if self.library_id is not None:
            source = self.current_source()

            def started(result: c.SourceSyncResponse | None, error: KbError | None) -> None:
                # it said nothing: an older message stayed in the status bar, or none at all
                if result is not None:
                    self.notice.emit(
                        tr("sources.sync.started", count=len(result.task_ids))
                        if result.task_ids
                        else tr("sources.sync.nothing")
                    )
                    # and then how it ended: "started" stayed after a sync of a second, and
                    # after another library was chosen (a helper's try)
                    for task_id in result.task_ids:
                        announce_end(self.link, task_id, self.notice.emit)
                self._report(result, error)

            self.link.call(
                SOURCE_SYNC,
                c.SourceSyncRequest(
                    library_id=self.library_id, source_id=source.id if source else None
                ),
                started,
            )

    def set_watch(self, on: bool) -> None:
        source = self.current_source()
        if self.library_id is not None and source is not None:
            self.link.call(
                SOURCE_WATCH,
                c.SourceWatchRequest(library_id=self.library_id, source_id=source.id, watch=on),
                self._report,
            )

    def remove_source(self) -> None:
        source = self.current_source()
        if source is not None:
            self.remove(source)

    def remove(self, source: c.Source) -> None:
        """Remove ``source`` (and its documents) after a question that names it."""
        if self.library_id is None:
            return
        library_id = self.library_id
        box = confirm_action(
            self._parent,
            tr("sources.remove"),
            tr("sources.remove.text", location=source.location, count=source.document_count),
            tr("sources.remove.confirm", name=Path(source.location).name or source.location),
        )
        self.remove_box = box

        def answered() -> None:
            self.remove_box = None
            if box.clickedButton() is box.property("confirmButton"):
                self.link.call(
                    SOURCE_REMOVE,
                    c.SourceRemoveRequest(library_id=library_id, source_id=source.id),
                    self._report,
                )

        box.finished.connect(lambda _r: answered())
        box.open()
