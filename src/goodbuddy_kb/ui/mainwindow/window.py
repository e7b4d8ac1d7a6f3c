"""The main window: library list (master) and the selected library's summary (detail).

Every change goes through the backend; the list refreshes on the backend's change
notifications, so libraries created from the CLI appear here too.

A language change applies at once: the window's widgets are built again in the new language,
keeping the selected library, the tabs, the chat's conversation and scope, and the connection
to the backend (answers still on their way to the old widgets are dropped). While a chat answer
streams, the change waits for its end (and says so).
"""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import ConflictError, InvalidRequestError, KbError
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    LIBRARY_RENAME,
    SETTINGS_GET,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.documents.tab import DocumentsTab
from goodbuddy_kb.ui.graph.tab import GraphTab
from goodbuddy_kb.ui.i18n import language, set_language, tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_text
from goodbuddy_kb.ui.i18n.qt_translations import use_qt_translations
from goodbuddy_kb.ui.library.dialogs import LibraryNameDialog, confirm_delete
from goodbuddy_kb.ui.library.model import LibraryListModel
from goodbuddy_kb.ui.settings.connections import ModelConnectionsDialog
from goodbuddy_kb.ui.settings.diagnostics import DiagnosticsDialog
from goodbuddy_kb.ui.settings.external_tools import ExternalToolsDialog
from goodbuddy_kb.ui.settings.tab import SettingsTab
from goodbuddy_kb.ui.tasks.tab import TasksTab
from goodbuddy_kb.ui.widgets.theme import SPACE, apply_theme, remember_theme, wants_dark
from goodbuddy_kb.ui.workbench.view import WorkbenchDialog


class BackendBanner(QtWidgets.QFrame):
    """Shown when the backend is gone: the reason, and a restart button."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backendBanner")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.label = QtWidgets.QLabel()
        self.label.setWordWrap(True)
        self.restart_button = QtWidgets.QPushButton(tr("backend.restart"))
        self.restart_button.setAccessibleName(tr("backend.restart"))
        layout = QtWidgets.QHBoxLayout(self)
        icon = QtWidgets.QLabel("⚠")
        icon.setAccessibleName("warning")
        layout.addWidget(icon)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.restart_button)
        self.hide()


class ElidingLabel(QtWidgets.QLabel):
    """A one-line label that ends in "…" when its room is short (its tooltip then holds the
    whole text) instead of being cut off mid-word by the widgets beside it."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        # its whole width when there is room, down to a few characters when there is not
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed
        )

    def setText(self, text: str) -> None:
        self._full = text
        self.updateGeometry()  # the layout asks the new text's width again
        self._elide()

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        return QtCore.QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, hint.height())

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(min(60, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self._full, QtCore.Qt.TextElideMode.ElideRight, max(0, self.width())
        )
        super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
        self.setAccessibleName(self._full)


class FitWidthDelegate(QtWidgets.QStyledItemDelegate):
    """List rows as wide as the list, not as their text: a long name ends in "…" (its tooltip
    holds it whole) instead of giving the list a sideways scroll bar."""

    def __init__(self, view: QtWidgets.QListView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self, option: QtWidgets.QStyleOptionViewItem, index: Any) -> QtCore.QSize:
        hint = super().sizeHint(option, index)
        return QtCore.QSize(min(hint.width(), self._view.viewport().width()), hint.height())


class LibraryDetailWidget(QtWidgets.QWidget):
    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = ElidingLabel()
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.created = QtWidgets.QLabel()
        self.created.setObjectName("muted")
        self.created.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        # The settings summary is details on demand: the tables below get the height.
        self.details_button = QtWidgets.QToolButton()
        self.details_button.setText(tr("detail.show"))
        self.details_button.setAccessibleName(tr("detail.show"))
        self.details_button.setCheckable(True)
        self.details_button.toggled.connect(self._toggle_details)
        self.pending = QtWidgets.QLabel("⟳ " + tr("detail.pending_rebuild"))
        self.pending.setObjectName("pendingRebuild")
        self.rebuild_button = QtWidgets.QPushButton(tr("rebuild.library"))
        self.rebuild_button.setAccessibleName(tr("rebuild.library"))
        self.retrieval = QtWidgets.QLabel()
        self.chunking = QtWidgets.QLabel()
        for label in (self.retrieval, self.chunking):
            label.setWordWrap(True)
            label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.empty = QtWidgets.QLabel(tr("libraries.empty"))
        self.empty.setWordWrap(True)
        self.empty.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        line = QtWidgets.QHBoxLayout()
        # the name takes the room it needs and gives way first (ending in "…") when the line
        # is short, before the date and the buttons are cut off
        line.addWidget(self.title)
        line.addWidget(self.created)
        line.addWidget(self.pending)
        line.addWidget(self.rebuild_button)
        line.addStretch(1)
        line.addWidget(self.details_button)
        layout.addLayout(line)
        heading_r = QtWidgets.QLabel(f"<b>{tr('detail.retrieval')}</b>")
        heading_c = QtWidgets.QLabel(f"<b>{tr('detail.chunking')}</b>")
        self.details = QtWidgets.QWidget()
        grid = QtWidgets.QFormLayout(self.details)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addRow(heading_r, self.retrieval)
        grid.addRow(heading_c, self.chunking)
        self.details.hide()
        layout.addWidget(self.details)
        self._shown: str | None = None
        self._library_widgets = [self.title, self.created, self.details_button]
        self.show_library(None)

    def show_library(self, library: c.Library | None) -> None:
        self.empty.setVisible(library is None)
        for widget in self._library_widgets:
            widget.setVisible(library is not None)
        self.details.setVisible(library is not None and self.details_button.isChecked())
        if library is None:
            self.pending.hide()
            self.rebuild_button.hide()
            return
        self.title.setText(library.name)
        self.created.setText(tr("detail.created", when=library.created_at[:16].replace("T", " ")))
        self.pending.setVisible(library.settings_pending_rebuild)
        self.rebuild_button.setVisible(library.settings_pending_rebuild)
        if self._shown != library.id:
            self.retrieval.setText("…")
            self.chunking.setText("…")
        self._shown = library.id

    def _toggle_details(self, on: bool) -> None:
        self.details.setVisible(on)
        self.details_button.setText(tr("detail.hide" if on else "detail.show"))

    def show_settings(self, settings: c.LibrarySettings) -> None:
        r, k = settings.retrieval, settings.chunking
        self.retrieval.setText(
            tr(
                "detail.retrieval.summary",
                top_k=r.top_k,
                fts=r.fts_weight,
                vector=r.vector_weight,
                graph=r.graph_weight,
                context=f"{r.context_max_characters:,}",
            )
        )
        self.chunking.setText(
            tr(
                "detail.chunking.summary",
                mode=tr(f"mode.{k.mode}"),
                target=f"{k.target_characters:,}",
                overlap=f"{k.overlap_characters:,}",
            )
        )
        self.pending.setVisible(settings.settings_pending_rebuild)
        self.rebuild_button.setVisible(settings.settings_pending_rebuild)


class MainWindow(QtWidgets.QMainWindow):
    listed = QtCore.Signal()  # the library list was refilled from the backend

    def __init__(self, link: BackendLink) -> None:
        super().__init__()
        self.link = link
        self.setWindowTitle(tr("app.title"))
        self.resize(1200, 800)
        self.model = LibraryListModel(self)
        self._select_after: str | None = None
        self.name_dialog: LibraryNameDialog | None = None
        self.delete_box: QtWidgets.QMessageBox | None = None
        self._wanted_language = language()
        self._shown_library: str | None = None
        self._language_waits = False
        self._build()
        link.connected.connect(self._on_connected)
        link.stopped.connect(self._on_stopped)
        # The external-tool call record changes nothing this window shows.
        link.changed.connect(lambda params: None if params.get("externalCalls") else self.refresh())
        self.statusBar().showMessage(tr("backend.connecting"))
        self._build_menu()
        self.connections: ModelConnectionsDialog | None = None
        self.external_tools: ExternalToolsDialog | None = None
        self.diagnostics: DiagnosticsDialog | None = None

    def _build_menu(self) -> None:
        menu = self.menuBar().addMenu(tr("menu.settings"))
        connections = menu.addAction(tr("menu.connections"))
        connections.triggered.connect(self.open_connections)
        external = menu.addAction(tr("menu.external_tools"))
        external.triggered.connect(self.open_external_tools)
        diagnostics = menu.addAction(tr("menu.diagnostics"))
        diagnostics.triggered.connect(self.open_diagnostics)
        theme = menu.addAction(tr("menu.theme"))
        theme.setCheckable(True)
        app = QtWidgets.QApplication.instance()
        theme.setChecked(isinstance(app, QtWidgets.QApplication) and wants_dark(app))
        self.theme_action = theme
        theme.toggled.connect(self._choose_theme)
        languages = menu.addMenu(tr("menu.language"))
        group = QtGui.QActionGroup(languages)
        self.language_actions: dict[str, QtGui.QAction] = {}
        for code, label in (("zh", "中文"), ("en", "English")):
            action = languages.addAction(label)
            action.setCheckable(True)
            action.setChecked(code == language())
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, c=code: self._choose_language(c))
            self.language_actions[code] = action

    def _choose_theme(self, dark: bool) -> None:
        app = QtWidgets.QApplication.instance()
        if isinstance(app, QtWidgets.QApplication):
            apply_theme(app, dark)
        remember_theme(dark)

    def _choose_language(self, code: str) -> None:
        """Remember the language and apply it now (after a streaming chat answer ends)."""
        QtCore.QSettings("GoodBuddy", "GoodBuddy KB").setValue("language", code)
        self._wanted_language = code
        if code == language():
            return
        if self.chat_view.request_id is not None:
            if not self._language_waits:
                self._language_waits = True
                self.chat_view.reply_finished.connect(self._language_after_reply)
            self.statusBar().showMessage(tr("menu.language.after_reply"), 15_000)
            return
        # Once the menu that asked has finished with its own event (the menus are rebuilt).
        QtCore.QTimer.singleShot(0, lambda: self.apply_language(self._wanted_language))

    def _language_after_reply(self) -> None:
        self.chat_view.reply_finished.disconnect(self._language_after_reply)
        self._language_waits = False
        QtCore.QTimer.singleShot(0, lambda: self.apply_language(self._wanted_language))

    def apply_language(self, code: str) -> None:
        """Build the window's widgets again in ``code``, where the person was."""
        if code == language():
            return
        library_id = self.current_library_id()
        top, tab = self.top_tabs.currentIndex(), self.tabs.currentIndex()
        sizes, doc_filter = self.splitter.sizes(), self.documents_tab.filter_box.currentIndex()
        document = self.documents_tab.current_document()
        set_language(code)
        app = QtWidgets.QApplication.instance()
        if isinstance(app, QtWidgets.QApplication):
            use_qt_translations(app, code)
        for widget in (
            self.documents_tab,
            self.tasks_tab,
            self.settings_tab,
            self.graph_tab,
            self.chat_view,
        ):
            widget.detach()
        self.link.drop_answers()
        old_chat = self.chat_view
        old = self.takeCentralWidget()
        if old is not None:
            old.hide()
            old.deleteLater()
        for action in self.menuBar().actions():
            menu = action.menu()
            if menu is not None:
                menu.deleteLater()
        self.menuBar().clear()
        self._shown_library = None
        self._build()
        self._build_menu()
        self.setWindowTitle(tr("app.title"))
        self.chat_view.take_over(old_chat)
        self.splitter.setSizes(sizes)
        self.top_tabs.setCurrentIndex(top)
        self.tabs.setCurrentIndex(tab)
        self.documents_tab.filter_box.setCurrentIndex(doc_filter)
        self.documents_tab.reselect = document.id if document is not None else None
        if self.link.alive:
            self.refresh(select_id=library_id)
            self.chat_view.refresh()
            self.statusBar().showMessage(tr("menu.language.applied"), 8_000)
        else:
            self._on_stopped("the backend is not running")

    def open_connections(self) -> None:
        dialog = ModelConnectionsDialog(self.link, self)
        self.connections = dialog
        dialog.saved.connect(self.documents_tab.refresh)
        dialog.open()

    def open_external_tools(self) -> None:
        dialog = ExternalToolsDialog(self.link, self)
        self.external_tools = dialog
        dialog.open()

    def open_diagnostics(self) -> None:
        dialog = DiagnosticsDialog(self.link, self)
        self.diagnostics = dialog
        dialog.open()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = BackendBanner()
        self.banner.restart_button.clicked.connect(self._restart)
        heading = QtWidgets.QLabel(f"<b>{tr('libraries.heading')}</b>")
        self.list_view = QtWidgets.QListView()
        self.list_view.setModel(self.model)
        self.list_view.setAccessibleName(tr("libraries.list"))
        self.list_view.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list_view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list_view.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.list_view.setResizeMode(QtWidgets.QListView.ResizeMode.Adjust)  # rows follow width
        self.list_view.setItemDelegate(FitWidthDelegate(self.list_view))
        self.list_view.selectionModel().currentChanged.connect(lambda *_: self._on_current())
        heading.setBuddy(self.list_view)
        self.new_button = self._button("libraries.new", self.new_library)
        self.rename_button = self._button("libraries.rename", self.rename_library)
        self.delete_button = self._button("libraries.delete", self.delete_library)
        # Two rows, so the list can stay narrow at 800 px without squeezing a label.
        buttons = QtWidgets.QGridLayout()
        buttons.addWidget(self.new_button, 0, 0, 1, 2)
        buttons.addWidget(self.rename_button, 1, 0)
        buttons.addWidget(self.delete_button, 1, 1)
        left = QtWidgets.QWidget()
        left.setMinimumWidth(150)
        left_layout = QtWidgets.QVBoxLayout(left)
        left_layout.setContentsMargins(SPACE, SPACE, 0, SPACE)
        left_layout.addWidget(heading)
        left_layout.addWidget(self.list_view, 1)
        left_layout.addLayout(buttons)
        self.detail = LibraryDetailWidget()
        self.workbench_button = self._button("workbench.open", self.open_workbench)
        self.documents_tab = DocumentsTab(self.link)
        self.tasks_tab = TasksTab(self.link)
        self.graph_tab = GraphTab(self.link)
        self.detail.rebuild_button.clicked.connect(self.documents_tab.rebuild_library)
        self.settings_tab = SettingsTab(self.link)
        self.settings_tab.rebuild_requested.connect(self.documents_tab.rebuild_library)
        for tab in (self.documents_tab, self.settings_tab, self.graph_tab):
            tab.notice.connect(lambda text: self.statusBar().showMessage(text, 8_000))
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.documents_tab, tr("tab.documents"))
        self.tabs.addTab(self.graph_tab, tr("tab.graph"))
        self.tabs.addTab(self.tasks_tab, tr("tab.tasks"))
        self.tabs.addTab(self.settings_tab, tr("tab.settings"))
        right = QtWidgets.QWidget()
        right.setMinimumWidth(420)
        right_layout = QtWidgets.QVBoxLayout(right)
        right_layout.setContentsMargins(0, SPACE, SPACE, 0)
        header = QtWidgets.QHBoxLayout()
        header.addWidget(self.detail, 1)
        header.addWidget(self.workbench_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        right_layout.addLayout(header)
        right_layout.addWidget(self.tabs, 1)
        self.workbench: WorkbenchDialog | None = None
        splitter = QtWidgets.QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([165, 1035])
        self.splitter = splitter
        self.chat_view = ChatView(self.link)
        self.top_tabs = QtWidgets.QTabWidget()
        self.top_tabs.addTab(splitter, tr("top.knowledge"))
        self.top_tabs.addTab(self.chat_view, tr("top.chat"))
        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(SPACE // 2, SPACE // 2, SPACE // 2, 0)
        layout.addWidget(self.banner)
        layout.addWidget(self.top_tabs, 1)
        self.setCentralWidget(central)
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
        self.tabs.setVisible(False)  # until a library is selected
        self._update_buttons()

    def _button(self, key: str, slot: Any) -> QtWidgets.QPushButton:
        button = QtWidgets.QPushButton(tr(key))
        button.setAccessibleName(tr(key))
        button.clicked.connect(slot)
        return button

    # -- backend state -----------------------------------------------------------------------
    def _on_connected(self, pid: int) -> None:
        self.banner.hide()
        self.statusBar().showMessage(tr("backend.connected", pid=pid))
        self.refresh()
        self.chat_view.refresh()

    def _on_stopped(self, reason: str) -> None:
        self.banner.label.setText(tr("backend.down", reason=say_text(reason)))
        self.banner.show()
        self.banner.restart_button.setFocus()
        self.statusBar().clearMessage()
        self._update_buttons()

    def _restart(self) -> None:
        self.banner.hide()
        self.statusBar().showMessage(tr("backend.connecting"))
        self.link.restart()

    def notify_error(self, error: KbError) -> None:
        self.statusBar().showMessage(tr("error.generic", message=say_error(error)), 10_000)

    # -- library list ----------------------------------------------------------------------
    def refresh(self, select_id: str | None = None) -> None:
        if select_id is not None:
            # Kept until a listing holds it: a refresh started earlier (by the creation's own
            # change notification) may answer later and must not select the old library again.
            self._select_after = select_id

        def done(result: c.LibraryListResponse | None, error: KbError | None) -> None:
            if error is not None or result is None:
                if error is not None:
                    self.notify_error(error)
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
            self._on_current()
            self.listed.emit()

        self.link.call(LIBRARY_LIST, c.LibraryListRequest(), done)

    def current_library(self) -> c.Library | None:
        index = self.list_view.currentIndex()
        return self.model.library_at(index.row()) if index.isValid() else None

    def current_library_id(self) -> str | None:
        library = self.current_library()
        return library.id if library else None

    def _on_current(self) -> None:
        library = self.current_library()
        self.detail.show_library(library)
        self._update_buttons()
        library_id = library.id if library else None
        if self._shown_library != library_id:
            self._shown_library = library_id
            self.documents_tab.show_library(library_id)
            self.tasks_tab.show_library(library_id)
            self.graph_tab.show_library(library_id)
            self.settings_tab.show_library(library_id)
        self.tabs.setVisible(library is not None)
        if library is None:
            return

        def done(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and result.library_id == self.current_library_id():
                self.detail.show_settings(result)

        self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library.id), done)

    def _update_buttons(self) -> None:
        has = self.current_library() is not None
        self.new_button.setEnabled(True)
        self.rename_button.setEnabled(has)
        self.delete_button.setEnabled(has)
        self.workbench_button.setEnabled(has)

    def open_workbench(self) -> None:
        library = self.current_library()
        if library is None:
            return
        dialog = WorkbenchDialog(self.link, library.id, library.name, self)
        self.workbench = dialog
        dialog.finished.connect(lambda _r: self.workbench_button.setFocus())
        dialog.open()
        dialog.query.setFocus()

    # -- actions ---------------------------------------------------------------------------
    def new_library(self) -> None:
        dialog = LibraryNameDialog(tr("dialog.new.title"), parent=self)
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
        dialog = LibraryNameDialog(tr("dialog.rename.title"), library.name, parent=self)
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
        self, dialog: LibraryNameDialog, result: Any, error: KbError | None, notice: str
    ) -> None:
        if error is not None:
            if isinstance(error, ConflictError | InvalidRequestError):
                dialog.show_error(say_error(error))
            else:
                dialog.show_error(tr("error.generic", message=say_error(error)))
            return
        library: c.Library = result.library
        dialog.accept()
        self.statusBar().showMessage(tr(notice, name=library.name), 5_000)
        self.refresh(select_id=library.id)

    def delete_library(self) -> None:
        library = self.current_library()
        if library is None:
            return
        box = confirm_delete(self, library.name)
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
                self.notify_error(error)
            return
        self.statusBar().showMessage(tr("notice.deleted", name=result.name), 5_000)
        self.refresh()
        self.list_view.setFocus()

    def closeEvent(self, event: Any) -> None:
        self.link.shutdown()
        super().closeEvent(event)
