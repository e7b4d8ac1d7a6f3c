"""The main window's shell: the library list (master, ``library.pane``) beside the selected
library's header and tabs (detail), the chat beside them, the backend banner, the Settings and
Help menus and the status bar; while there is no library, the welcome page instead (``welcome``),
and the sample library's tips above its tabs.

Every change goes through the backend; the list follows its change notifications (the CLI's too).

Where the person was — the selected library, the area, the library tab, the window's geometry
and the chat's unsent question — is kept by the backend and restored at the next launch
(``kept``); the chat restores each conversation's scope itself.

A language change applies at once: the window's widgets are built again in the new language,
keeping the selected library, the tabs, the chat's conversation and scope, the graph tab's
search and entity, and the connection to the backend (answers still on their way to the old
widgets are dropped). While a chat answer streams, the change waits for its end (says so)."""

from __future__ import annotations

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import system as y
from goodbuddy_kb.contracts import window as w
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import (
    CONVERSATION_SCOPE_UPDATE,
    SETTINGS_GET,
    WINDOW_STATE_GET,
    WINDOW_STATE_UPDATE,
)
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.documents.tab import DocumentsTab
from goodbuddy_kb.ui.graph.tab import GraphTab
from goodbuddy_kb.ui.i18n import language, set_language, tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_text
from goodbuddy_kb.ui.i18n.qt_translations import use_qt_translations
from goodbuddy_kb.ui.library.detail import LibraryDetailWidget
from goodbuddy_kb.ui.library.dialogs import LibraryNameDialog
from goodbuddy_kb.ui.library.model import LibraryListModel
from goodbuddy_kb.ui.library.pane import LibraryListWidget
from goodbuddy_kb.ui.mainwindow.about import AboutDialog
from goodbuddy_kb.ui.mainwindow.banner import BackendBanner
from goodbuddy_kb.ui.mainwindow.kept import WindowKeeper
from goodbuddy_kb.ui.mainwindow.menus import LANGUAGES, HelpMenu, SettingsMenu
from goodbuddy_kb.ui.settings.connections import ModelConnectionsDialog
from goodbuddy_kb.ui.settings.diagnostics import DiagnosticsDialog
from goodbuddy_kb.ui.settings.external_tools import ExternalToolsDialog
from goodbuddy_kb.ui.settings.leaving import held_back
from goodbuddy_kb.ui.settings.tab import SettingsTab
from goodbuddy_kb.ui.tasks.activity import Activity
from goodbuddy_kb.ui.tasks.tab import TasksTab
from goodbuddy_kb.ui.welcome.first_run import FirstRun
from goodbuddy_kb.ui.welcome.guide import SampleGuide
from goodbuddy_kb.ui.welcome.page import WelcomePage
from goodbuddy_kb.ui.widgets import status_bar
from goodbuddy_kb.ui.widgets.buttons import button
from goodbuddy_kb.ui.widgets.page_scroll import PageLayout, scrolled_page
from goodbuddy_kb.ui.widgets.screen_fit import install_screen_fitter
from goodbuddy_kb.ui.widgets.theme import SPACE
from goodbuddy_kb.ui.widgets.wheel_guard import install_wheel_guard
from goodbuddy_kb.ui.workbench.memory import WorkbenchMemory
from goodbuddy_kb.ui.workbench.view import WorkbenchDialog

#: Mutations that change nothing the window lists (it keeps them itself).
QUIET_METHODS = frozenset({WINDOW_STATE_UPDATE.name, CONVERSATION_SCOPE_UPDATE.name})
#: What the window says until it lists: the backend starts, or it loads (built anew in a language)
WAITING = ("backend.connecting", "window.loading")


class MainWindow(QtWidgets.QMainWindow):
    #: The library list has been (re)filled from the backend (tests wait on it).
    listed = QtCore.Signal()
    # (built in _build, again on a language change)
    libraries: LibraryListWidget
    top_tabs: QtWidgets.QTabWidget
    tabs: QtWidgets.QTabWidget
    graph_tab: GraphTab
    chat_view: ChatView
    guide: SampleGuide

    def __init__(self, link: BackendLink) -> None:
        super().__init__()
        self.link = link
        #: Where the person was: restored once, then kept a moment after each change.
        self.keeper = WindowKeeper(self, self)
        self.setWindowTitle(tr("app.title"))
        # within its screen (800×600 got all of 1200×800); a kept geometry replaces this at once
        room = self.screen().availableGeometry()
        self.resize(min(1200, room.width()), min(800, room.height()))
        install_wheel_guard(self)  # the wheel scrolls pages, not the settings it passes over
        install_screen_fitter(self)  # every window and dialog within its screen, frame and all
        self.model = LibraryListModel(self)  # kept while the widgets are built again
        #: Each library's workbench question, top K, rerank and splitter for the session.
        self.workbench_memory = WorkbenchMemory()
        #: The open workbenches, one per library (they stay open beside the window).
        self.workbenches: dict[str, WorkbenchDialog] = {}
        self._wanted_language = language()
        self._shown_library: str | None = None
        self._language_waits = False
        self.first_run = FirstRun(link, self)
        self.first_run_sample: y.SampleLibraryResponse | None = None  # across a language change
        self.first_run.library_made.connect(lambda library_id: self.refresh(select_id=library_id))
        # (late-bound: the guide is built again with the widgets on a language change)
        self.first_run.sample_made.connect(lambda sample: self.guide.show_sample(sample))  # noqa: PLW0108
        self.first_run.failed.connect(lambda e: self.welcome.set_working(False, say_error(e)))
        link.refused.connect(self._on_refused)
        self.refusal_box: QtWidgets.QMessageBox | None = None
        self.about: AboutDialog | None = None
        self._build()
        link.connected.connect(self._on_connected)
        link.stopped.connect(self._on_stopped)
        link.changed.connect(self._on_backend_changed)
        status_bar.install(self, Activity(link)).showMessage(tr("backend.connecting"))
        self._build_menu()
        self.connections: ModelConnectionsDialog | None = None
        self.external_tools: ExternalToolsDialog | None = None
        self.diagnostics: DiagnosticsDialog | None = None

    def _build_menu(self) -> None:
        menu = SettingsMenu(self.menuBar())
        menu.connections.connect(self.open_connections)
        menu.external_tools.connect(self.open_external_tools)
        menu.diagnostics.connect(self.open_diagnostics)
        menu.language_chosen.connect(self._choose_language)
        menu.quit.connect(self.close)
        self.quit_action = menu.quit_action
        self.theme_action = menu.theme_action
        self.language_actions = menu.language_actions
        self.help_menu = HelpMenu(self.menuBar())
        self.help_menu.about.connect(self.open_about)

    # -- language ------------------------------------------------------------------------
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
            wanted = tr("menu.language.after_reply", language=dict(LANGUAGES).get(code, code))
            self.statusBar().showMessage(wanted, 15_000)
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
        self.first_run_sample = self.guide.sample if self.guide.library_id else None
        top, tab = self.top_tabs.currentIndex(), self.tabs.currentIndex()
        sizes, doc_filter = self.splitter.sizes(), self.documents_tab.filter_box.currentIndex()
        document = self.documents_tab.current_document()
        # open workbenches close (each remembering its question) and open again in the new
        # language, searching again if they had answered
        open_now = list(self.workbenches.values())
        benches = [(b.library_id, b.library_name, b.response is not None) for b in open_now]
        for bench in open_now:
            bench.reject()
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
        old_chat, old_settings, old_graph = self.chat_view, self.settings_tab, self.graph_tab
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
        self.settings_tab.take_over(old_settings)
        self.graph_tab.take_over(old_graph)
        if self.first_run_sample is not None:
            self.guide.show_sample(self.first_run_sample, imported=True)
        self.splitter.setSizes(sizes)
        self.top_tabs.setCurrentIndex(top)
        self.tabs.setCurrentIndex(tab)
        self.documents_tab.filter_box.setCurrentIndex(doc_filter)
        self.documents_tab.reselect = document.id if document is not None else None
        if self.link.alive:
            self.refresh(select_id=library_id)
            self.chat_view.refresh()
            self.statusBar().showMessage(tr("menu.language.applied"), 8_000)
            for bench_library, name, answered in benches:
                bench = self._open_bench(bench_library, name)
                if answered:
                    bench.run()
        else:
            self._on_stopped("the backend is not running")

    def open_connections(self) -> None:
        dialog = ModelConnectionsDialog(self.link, self)
        self.connections = dialog
        dialog.saved.connect(self.documents_tab.refresh)
        dialog.open()

    def open_external_tools(self) -> None:
        self.external_tools = ExternalToolsDialog(self.link, self)
        self.external_tools.open()

    def open_diagnostics(self) -> None:
        self.diagnostics = DiagnosticsDialog(self.link, self)
        self.diagnostics.open()

    def open_about(self) -> None:
        self.about = AboutDialog(self.link, self)
        self.about.open()

    # -- the first run -----------------------------------------------------------------------
    def _build_first_run(self) -> None:
        self.welcome = WelcomePage()
        self.welcome.sample_chosen.connect(lambda: self.welcome.set_working(True))
        self.welcome.sample_chosen.connect(self.first_run.try_sample)
        self.welcome.folder_chosen.connect(lambda _f: self.welcome.set_working(True))
        self.welcome.folder_chosen.connect(self.first_run.add_folder)
        self.welcome.language_chosen.connect(self._choose_language)
        self.guide = SampleGuide(self.link)
        self.guide.ask.connect(self.ask_in_workbench)
        self.guide.show_graph.connect(lambda: self.tabs.setCurrentWidget(self.graph_tab))
        self.libraries.listed.connect(self._show_welcome)

    def _show_welcome(self) -> None:
        """The welcome page while there is no library and the chat is not chosen; else the areas."""
        empty = self.model.rowCount() == 0 and self.top_tabs.currentIndex() == 0
        self.stack.setCurrentWidget(self.welcome if empty else self.top_tabs)
        if empty:
            self.welcome.set_working(False)

    def ask_in_workbench(self, question: str) -> None:
        self.open_workbench()
        if self.workbench is not None:
            self.workbench.query.setPlainText(question)
            self.workbench.run()

    def bring_to_front(self) -> None:
        """Another start on this data directory asked for this window."""
        self.setWindowState(self.windowState() & ~QtCore.Qt.WindowState.WindowMinimized)
        self.show()
        self.raise_()
        self.activateWindow()

    def _on_refused(self, message: str) -> None:
        """A data directory this build must not open (a newer version's): said in a dialog."""
        box = QtWidgets.QMessageBox(self)
        box.setIcon(QtWidgets.QMessageBox.Icon.Critical)
        box.setWindowTitle(tr("app.title"))
        box.setText(say_text(message))
        self.refusal_box = box
        box.open()

    # -- layout ----------------------------------------------------------------------------
    def _build(self) -> None:
        self.banner = BackendBanner()
        self.banner.restart_button.clicked.connect(self._restart)
        self.libraries = LibraryListWidget(self.link, self.model)
        self.libraries.current_changed.connect(self._on_current)
        self.libraries.listed.connect(self.listed.emit)
        self.libraries.listed.connect(self._close_gone_benches)
        self.libraries.notice.connect(self.statusBar().showMessage)
        self.libraries.failed.connect(self.notify_error)
        self.list_view = self.libraries.list_view
        self.new_button = self.libraries.new_button
        self.rename_button = self.libraries.rename_button
        self.delete_button = self.libraries.delete_button
        self.detail = LibraryDetailWidget()
        self.detail.follow_rebuilds(self.link)
        self._build_first_run()
        self.workbench_button = button("workbench.open", self.open_workbench)
        self.documents_tab = DocumentsTab(self.link)
        self.tasks_tab = TasksTab(self.link)
        self.graph_tab = GraphTab(self.link)
        self.settings_tab = SettingsTab(self.link)
        self.settings_tab.rebuild_requested.connect(self.documents_tab.rebuild_library)
        for tab in (self.documents_tab, self.settings_tab, self.graph_tab):
            tab.notice.connect(lambda text: self.statusBar().showMessage(text, 8_000))
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.documents_tab, tr("tab.documents"))
        self.tabs.addTab(self.graph_tab, tr("tab.graph"))
        self.tabs.addTab(self.tasks_tab, tr("tab.tasks"))
        self.tabs.addTab(self.settings_tab, tr("tab.settings"))
        self.libraries.created.connect(lambda _id: self.tabs.setCurrentWidget(self.documents_tab))
        right = QtWidgets.QWidget()
        right.setMinimumWidth(420)
        right_layout = PageLayout(right)
        right_layout.setContentsMargins(SPACE // 2, SPACE, SPACE, 0)  # not against the handle
        header = QtWidgets.QHBoxLayout()
        header.addWidget(self.detail, 1)
        header.addWidget(self.workbench_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        right_layout.addLayout(header)
        right_layout.addWidget(self.guide)
        right_layout.addWidget(self.tabs, 1)
        self.workbench: WorkbenchDialog | None = None
        splitter = QtWidgets.QSplitter()
        splitter.addWidget(self.libraries)
        splitter.addWidget(scrolled_page(right))
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([165, 1035])
        self.splitter = splitter
        self.chat_view = ChatView(self.link)
        self.top_tabs = QtWidgets.QTabWidget()
        self.top_tabs.addTab(splitter, tr("top.knowledge"))
        self.top_tabs.addTab(self.chat_view, tr("top.chat"))
        kept = (self.top_tabs.currentChanged, self.tabs.currentChanged, self.chat_view.opened)
        for signal in (*kept, self.chat_view.input.textChanged):
            signal.connect(lambda *_: self.keeper.changed())
        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(SPACE // 2, SPACE // 2, SPACE // 2, 0)
        layout.addWidget(self.banner)
        self.stack = QtWidgets.QStackedWidget()
        waiting = QtWidgets.QLabel(tr(WAITING[self.link.alive]))
        waiting.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.stack.addWidget(waiting)
        self.stack.addWidget(self.top_tabs)
        self.stack.addWidget(self.welcome)
        self.top_tabs.currentChanged.connect(  # (after the first listing only: see WAITING)
            lambda _i: self._show_welcome() if self.stack.currentIndex() != 0 else None
        )
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.tabs.setVisible(False)  # until a library is selected
        self._update_buttons()

    # -- backend state -----------------------------------------------------------------------
    def _on_connected(self, pid: int) -> None:
        self.banner.hide()
        self.statusBar().showMessage(tr("backend.connected", pid=pid), 6_000)  # (then gone)
        if self.keeper.restored:  # a restarted backend: stay where the person is
            self.refresh()
            self.chat_view.refresh()
            return

        def done(result: w.WindowStateResponse | None, error: KbError | None) -> None:
            state = result.state if result is not None else None
            self.keeper.restore(state)
            self.refresh(select_id=state.library_id if state is not None else None)
            self.chat_view.refresh()

        self.link.call(WINDOW_STATE_GET, w.WindowStateGetRequest(), done)

    def _on_backend_changed(self, params: dict[str, object]) -> None:
        # The external-tool call record and the window's own state change nothing it lists.
        if not params.get("externalCalls") and params.get("method") not in QUIET_METHODS:
            self.refresh()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self.keeper.changed()

    def moveEvent(self, event: QtGui.QMoveEvent) -> None:
        super().moveEvent(event)
        self.keeper.changed()

    def _on_stopped(self, reason: str) -> None:
        self.banner.say_down(reason)
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

    # -- the library list (its pane does the work) ---------------------------------------------
    def refresh(self, select_id: str | None = None) -> None:
        """List the libraries again (``listed`` says when), selecting ``select_id`` if given."""
        self.libraries.refresh(select_id)

    def current_library(self) -> c.Library | None:
        return self.libraries.current_library()

    def current_library_id(self) -> str | None:
        return self.libraries.current_library_id()

    def new_library(self) -> None:
        self.libraries.new_library()

    def rename_library(self) -> None:
        self.libraries.rename_library()

    def delete_library(self) -> None:
        self.libraries.delete_library()

    @property
    def name_dialog(self) -> LibraryNameDialog | None:  # the last one opened (new or rename)
        return self.libraries.name_dialog

    @property
    def delete_box(self) -> QtWidgets.QMessageBox | None:  # the last "delete this library?"
        return self.libraries.delete_box

    def _on_current(self) -> None:
        library = self.current_library()
        self.detail.show_library(library)
        self._update_buttons()
        library_id = library.id if library else None
        self.keeper.changed()
        if self._shown_library != library_id:
            self._shown_library = library_id
            self.documents_tab.show_library(library_id)
            self.tasks_tab.show_library(library_id)
            self.graph_tab.show_library(library_id)
            self.settings_tab.show_library(library_id, library.name if library else None)
        self.tabs.setVisible(library is not None)
        self.guide.setVisible(library_id is not None and library_id == self.guide.library_id)
        if library is None:
            return

        def done(result: c.LibrarySettings | None, error: KbError | None) -> None:
            if result is not None and result.library_id == self.current_library_id():
                self.detail.show_settings(result)

        self.link.call(SETTINGS_GET, c.SettingsGetRequest(library_id=library.id), done)

    def _update_buttons(self) -> None:
        self.libraries.update_buttons()
        self.workbench_button.setEnabled(self.current_library() is not None)

    def open_workbench(self) -> None:
        """The current library's workbench, beside the window (not modal: the documents, the
        chat and the other libraries stay usable); one already open comes to the front."""
        library = self.current_library()
        if library is None:
            return
        self._open_bench(library.id, library.name)

    def _open_bench(self, library_id: str, name: str) -> WorkbenchDialog:
        dialog = self.workbenches.get(library_id)
        if dialog is None:
            dialog = WorkbenchDialog(
                self.link, library_id, name, self, memory=self.workbench_memory
            )
            self.workbenches[library_id] = dialog
            dialog.finished.connect(lambda _r, d=dialog: self._bench_closed(d))
            dialog.setModal(False)
            dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        dialog.query.setFocus()
        self.workbench = dialog
        return dialog

    def _close_gone_benches(self) -> None:
        """A deleted library's workbench closes (its searches could only fail)."""
        listed = {
            x.id
            for i in range(self.model.rowCount())
            if (x := self.model.library_at(i)) is not None
        }
        for bench in list(self.workbenches.values()):
            if bench.library_id not in listed:
                bench.reject()

    def _bench_closed(self, dialog: WorkbenchDialog) -> None:
        if self.workbenches.get(dialog.library_id) is dialog:
            del self.workbenches[dialog.library_id]
        dialog.deleteLater()
        if self.workbench is dialog:
            self.workbench = None
        if self.isActiveWindow() or not self.workbenches:
            self.workbench_button.setFocus()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if held_back(self.settings_tab, event, self.close):  # unsaved settings: asked first
            return
        self.keeper.keep_before_closing()
        self.link.shutdown()
        super().closeEvent(event)
