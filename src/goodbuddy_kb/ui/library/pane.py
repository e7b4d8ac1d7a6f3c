"""The library list pane, the master side of the main window: the list of libraries, New,
Rename and Delete with their shortcuts, and the backend calls behind them.

The list refills from ``knowledge:library:list`` (the window asks again on the backend's change
notifications, so libraries created from the CLI appear too) and says so with ``listed``. The
pane talks to its window through signals only: the current library changed, a status line, a
failed call."""

from __future__ import annotations

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import ConflictError, InvalidRequestError, KbError
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    LIBRARY_RENAME,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error
from goodbuddy_kb.ui.library.dialogs import LibraryNameDialog, confirm_delete
from goodbuddy_kb.ui.library.model import LibraryListModel
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.theme import SPACE


class FitWidthDelegate(QtWidgets.QStyledItemDelegate):
    """List rows as wide as the list, not as their text: a long name ends in "…" (its tooltip
    holds it whole) instead of giving the list a sideways scroll bar."""

    def __init__(self, view: QtWidgets.QListView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(
        self,
        option: QtWidgets.QStyleOptionViewItem,
        index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
    ) -> QtCore.QSize:
        hint = super().sizeHint(option, index)
        return QtCore.QSize(min(hint.width(), self._view.viewport().width()), hint.height())


class LibraryListWidget(QtWidgets.QWidget):
    """The list over ``model`` (the window keeps the model across language changes) and the
    actions on its libraries."""

    #: The current library changed, or the list was refilled around it.
    current_changed = QtCore.Signal()
    #: The list has been (re)filled from the backend.
    listed = QtCore.Signal()
    #: A status line and how long it stays (ms).
    notice = QtCore.Signal(str, int)
    #: A backend call failed (its ``KbError``).
    failed = QtCore.Signal(object)
    #: A library was made here (its id): what it needs first is a source.
    created = QtCore.Signal(str)

    def __init__(
        self, link: BackendLink, model: LibraryListModel, parent: QtWidgets.QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.link, self.model = link, model
        self._select_after: str | None = None
        #: The listings asked for so far (only the newest one's answer is shown).
        self._asked = 0
        self.name_dialog: LibraryNameDialog | None = None
        self.delete_box: QtWidgets.QMessageBox | None = None
        self._build()

    def _build(self) -> None:
        heading = QtWidgets.QLabel(f"<b>{tr('libraries.heading')}</b>")
        self.list_view = QtWidgets.QListView()
        self.list_view.setModel(self.model)
        self.list_view.setAccessibleName(tr("libraries.list"))
        self.list_view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list_view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_view.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.list_view.setResizeMode(QtWidgets.QListView.ResizeMode.Adjust)  # rows follow width
        self.list_view.setItemDelegate(FitWidthDelegate(self.list_view))
        self.list_view.selectionModel().currentChanged.connect(
            lambda *_: self.current_changed.emit()
        )
        heading.setBuddy(self.list_view)
        self.new_button = button("libraries.new", self.new_library)
        self.rename_button = button("libraries.rename", self.rename_library)
        self.delete_button = button("libraries.delete", self.delete_library)
        # Two rows, so the list can stay narrow at 800 px without squeezing a label.
        buttons = QtWidgets.QGridLayout()
        buttons.addWidget(self.new_button, 0, 0, 1, 2)
        buttons.addWidget(self.rename_button, 1, 0)
        buttons.addWidget(self.delete_button, 1, 1)
        self.setMinimumWidth(150)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(SPACE, SPACE, SPACE // 2, SPACE)
        layout.addWidget(heading)
        layout.addWidget(self.list_view, 1)
        layout.addLayout(buttons)
        new_shortcut = QtCore.QKeyCombination(
            QtCore.Qt.KeyboardModifier.ControlModifier, QtCore.Qt.Key.Key_N
        )
        self.new_button.setShortcut(new_shortcut)
        # Delete and F2 act on a library only while the library list has focus: a bare Delete
        # in a table of other things (documents, sources) must never offer to delete a library.
        for key, slot in (
            (QtCore.Qt.Key.Key_Delete, self.delete_library),
            (QtCore.Qt.Key.Key_F2, self.rename_library),
        ):
            shortcut = QtGui.QShortcut(QtGui.QKeySequence(key), self.list_view)
            shortcut.setContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(slot)

    def update_buttons(self) -> None:
        has = self.current_library() is not None
        self.new_button.setEnabled(True)
        self.rename_button.setEnabled(has)
        self.delete_button.setEnabled(has)

    # -- the list --------------------------------------------------------------------------
    def refresh(self, select_id: str | None = None) -> None:
        if select_id is not None:
            # Kept until a listing holds it: a refresh started earlier (by the creation's own
            # change notification) may answer later and must not select the old library again.
            self._select_after = select_id
        self._asked += 1
        asked = self._asked
        self.link.call(
            LIBRARY_LIST,
            c.LibraryListRequest(),
            lambda result, error: self._listed(result, error, asked),
        )

    def _listed(
        self, result: c.LibraryListResponse | None, error: KbError | None, asked: int
    ) -> None:
        if asked != self._asked:
            # An older listing answering late (the backend answers reads in parallel): it may
            # lack the library just made, so it changes nothing; the newest one will answer.
            self.listed.emit()
            return
        if error is not None or result is None:
            if error is not None:
                self.failed.emit(error)
            return
        wanted = self._select_after
        current = self.current_library_id()
        self.model.set_libraries(result.libraries)
        if wanted is not None and self.model.row_of(wanted) >= 0:
            current, self._select_after = wanted, None
        row = self.model.row_of(current) if current else -1
        if row < 0 and self.model.rowCount() > 0:
            row = 0
        if row >= 0:
            self.list_view.setCurrentIndex(self.model.index(row))
        self.current_changed.emit()
        self.listed.emit()

    def current_library(self) -> c.Library | None:
        index = self.list_view.currentIndex()
        return self.model.library_at(index.row()) if index.isValid() else None

    def current_library_id(self) -> str | None:
        library = self.current_library()
        return library.id if library else None

    # -- actions ---------------------------------------------------------------------------
    def new_library(self) -> None:
        dialog = LibraryNameDialog(tr("dialog.new.title"), parent=self.window())
        self.name_dialog = dialog

        def submit(name: str) -> None:
            self.link.call(
                LIBRARY_CREATE,
                c.LibraryCreateRequest(name=name),
                lambda result, error: self._after_name(dialog, result, error, "notice.created"),
            )

        dialog.submitted.connect(submit)
        dialog.finished.connect(lambda _r: self.new_button.setFocus())
        dialog.open()

    def rename_library(self) -> None:
        library = self.current_library()
        if library is None:
            return
        dialog = LibraryNameDialog(tr("dialog.rename.title"), library.name, parent=self.window())
        self.name_dialog = dialog

        def submit(name: str) -> None:
            self.link.call(
                LIBRARY_RENAME,
                c.LibraryRenameRequest(library_id=library.id, name=name),
                lambda result, error: self._after_name(dialog, result, error, "notice.renamed"),
            )

        dialog.submitted.connect(submit)
        dialog.finished.connect(lambda _r: self.list_view.setFocus())
        dialog.open()

    def _after_name(
        self,
        dialog: LibraryNameDialog,
        result: c.LibraryCreateResponse | c.LibraryRenameResponse | None,
        error: KbError | None,
        notice: str,
    ) -> None:
        if error is not None:
            if isinstance(error, ConflictError | InvalidRequestError):
                dialog.show_error(say_error(error))
            else:
                dialog.show_error(tr("error.generic", message=say_error(error)))
            return
        if result is None:
            return
        library = result.library
        dialog.accept()
        self.notice.emit(tr(notice, name=library.name), 5_000)
        self.refresh(select_id=library.id)
        if isinstance(result, c.LibraryCreateResponse):
            self.created.emit(library.id)

    def delete_library(self) -> None:
        library = self.current_library()
        if library is None:
            return
        box = confirm_delete(self.window(), library.name)
        self.delete_box = box

        def answered() -> None:
            if box.clickedButton() is not box.property("deleteButton"):
                return
            self.link.call(
                LIBRARY_DELETE,
                c.LibraryDeleteRequest(library_id=library.id),
                self._after_delete,
            )

        box.finished.connect(lambda _r: answered())
        box.open()

    def _after_delete(self, result: c.LibraryDeleteResponse | None, error: KbError | None) -> None:
        if error is not None or result is None:
            if error is not None:
                self.failed.emit(error)
            return
        self.notice.emit(tr("notice.deleted", name=result.name), 5_000)
        self.refresh()
        self.list_view.setFocus()
