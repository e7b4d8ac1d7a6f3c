"""The sources' actions of the documents pane: add a file, a folder or a web page (or drop
files and folders on the pane), sync now, watch a folder, and remove a source after a question
that names it and defaults to Cancel. A part of ``DocumentsTab``, apart by concept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import SOURCE_ADD, SOURCE_REMOVE, SOURCE_SYNC, SOURCE_WATCH
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.documents.row_actions import dropped_sources
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.widgets.confirm import confirm_action
from goodbuddy_kb.ui.widgets.table_model import RowsModel

#: What the backend reads (its parsers' suffixes, images through OCR), for the file chooser.
DOCUMENT_SUFFIXES = (
    ".md",
    ".markdown",
    ".txt",
    ".text",
    ".html",
    ".htm",
    ".pdf",
    ".docx",
    ".png",
    ".jpg",
    ".jpeg",
    ".webp",
    ".tif",
    ".tiff",
    ".bmp",
)


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


class SourceActions:
    """Mixed into ``DocumentsTab`` (a QWidget with these attributes)."""

    link: BackendLink
    library_id: str | None
    notice: Any  # the tab's Signal(str)
    remove_box: QtWidgets.QMessageBox | None
    folder_dialog: QtWidgets.QFileDialog | None
    sources: RowsModel[c.Source]
    source_view: QtWidgets.QTableView
    watch_box: QtWidgets.QCheckBox
    remove_button: QtWidgets.QPushButton

    def _widget(self) -> QtWidgets.QWidget:
        """This tab as the parent of its dialogs."""
        assert isinstance(self, QtWidgets.QWidget)
        return self

    # -- drag and drop: files and folders dropped on the pane become sources ----------------
    def dragEnterEvent(self, event: Any) -> None:
        if self.library_id is not None and dropped_sources(event.mimeData()):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: Any) -> None:
        self.dragEnterEvent(event)

    def dropEvent(self, event: Any) -> None:
        found = dropped_sources(event.mimeData())
        if self.library_id is None or not found:
            return
        event.acceptProposedAction()
        for kind, path in found:
            self.add_source(kind, path)
        self.notice.emit(tr("sources.dropped", count=len(found)))

    def current_source(self) -> c.Source | None:
        index = self.source_view.currentIndex()
        return self.sources.row_at(index.row()) if index.isValid() else None

    def _update_watch(self) -> None:
        source = self.current_source()
        self.watch_box.blockSignals(True)
        self.watch_box.setChecked(bool(source and source.watch))
        self.watch_box.setEnabled(source is not None and source.kind == "folder")
        self.watch_box.blockSignals(False)
        self.remove_button.setEnabled(source is not None)

    # -- actions ---------------------------------------------------------------------------
    def _report(self, result: Any, error: KbError | None) -> None:
        if error is not None:
            self.notice.emit(tr("error.generic", message=say_error(error)))

    def add_source(self, kind: c.SourceKind, location: str) -> None:
        if self.library_id is None or not location:
            return
        request = c.SourceAddRequest(library_id=self.library_id, kind=kind, location=location)
        self.link.call(SOURCE_ADD, request, self._report)

    def _choose(self, kind: c.SourceKind) -> QtWidgets.QFileDialog:
        """The file chooser for a file or a folder source, open (window-modal) until answered;
        the chosen path becomes a source. Kept as ``folder_dialog`` while it is open."""
        dialog = QtWidgets.QFileDialog(self._widget(), tr(f"sources.add_{kind}"))
        if kind == "folder":
            dialog.setFileMode(QtWidgets.QFileDialog.FileMode.Directory)
            dialog.setOption(QtWidgets.QFileDialog.Option.ShowDirsOnly, True)
        else:
            dialog.setFileMode(QtWidgets.QFileDialog.FileMode.ExistingFile)
            patterns = " ".join(f"*{suffix}" for suffix in DOCUMENT_SUFFIXES)
            dialog.setNameFilters(
                [tr("sources.file_filter", patterns=patterns), tr("sources.all_files")]
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

    def add_web_source(self) -> None:
        url, ok = QtWidgets.QInputDialog.getText(
            self._widget(), tr("sources.add_web"), tr("sources.web.prompt")
        )
        if ok:
            self.add_source("web", url.strip())

    def sync_now(self) -> None:
        if self.library_id is not None:
            source = self.current_source()
            self.link.call(
                SOURCE_SYNC,
                c.SourceSyncRequest(
                    library_id=self.library_id, source_id=source.id if source else None
                ),
                self._report,
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
        if self.library_id is None or source is None:
            return
        library_id = self.library_id
        box = confirm_action(
            self._widget(),
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
