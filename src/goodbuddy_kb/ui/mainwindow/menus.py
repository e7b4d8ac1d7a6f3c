"""The main window's menus: Settings (model connections, external tools, diagnostics, the dark
theme, the language and Quit) and Help (About). The Settings menu applies the theme itself;
everything else they ask of the window through signals."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import language, tr
from goodbuddy_kb.ui.widgets.theme import apply_theme, remember_theme, wants_dark

#: The languages offered, each named in itself.
LANGUAGES = (("zh", "中文"), ("en", "English"))


class SettingsMenu(QtCore.QObject):
    """Builds the menu in ``menu_bar`` (built again, in the new words, after a language change)."""

    connections = QtCore.Signal()
    external_tools = QtCore.Signal()
    diagnostics = QtCore.Signal()
    #: A language was chosen (its code); the window applies it.
    language_chosen = QtCore.Signal(str)
    #: Quit (Ctrl+Q): the window closes, and the backend with it.
    quit = QtCore.Signal()

    def __init__(self, menu_bar: QtWidgets.QMenuBar) -> None:
        menu = menu_bar.addMenu(tr("menu.settings"))
        super().__init__(menu)  # goes with the menu when the menus are built again
        for key, signal in (
            ("menu.connections", self.connections),
            ("menu.external_tools", self.external_tools),
            ("menu.diagnostics", self.diagnostics),
        ):
            action = menu.addAction(tr(key))
            action.triggered.connect(lambda _checked=False, s=signal: s.emit())
        theme = menu.addAction(tr("menu.theme"))
        theme.setCheckable(True)
        app = QtWidgets.QApplication.instance()
        theme.setChecked(isinstance(app, QtWidgets.QApplication) and wants_dark(app))
        self.theme_action = theme
        theme.toggled.connect(choose_theme)
        languages = menu.addMenu(tr("menu.language"))
        group = QtGui.QActionGroup(languages)
        self.language_actions: dict[str, QtGui.QAction] = {}
        for code, label in LANGUAGES:
            action = languages.addAction(label)
            action.setCheckable(True)
            action.setChecked(code == language())
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, c=code: self.language_chosen.emit(c))
            self.language_actions[code] = action
        menu.addSeparator()
        self.quit_action = menu.addAction(tr("menu.quit"))
        # Ctrl+Q (⌘Q on macOS): the platform's standard Quit key is empty on some desktops
        self.quit_action.setShortcut(QtGui.QKeySequence("Ctrl+Q"))
        self.quit_action.setShortcutContext(QtCore.Qt.ShortcutContext.ApplicationShortcut)
        self.quit_action.setMenuRole(QtGui.QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(lambda _checked=False: self.quit.emit())


class HelpMenu(QtCore.QObject):
    """The Help menu: About (version, data directory, models, notices)."""

    about = QtCore.Signal()

    def __init__(self, menu_bar: QtWidgets.QMenuBar) -> None:
        menu = menu_bar.addMenu(tr("menu.help"))
        super().__init__(menu)
        action = menu.addAction(tr("menu.about"))
        action.setMenuRole(QtGui.QAction.MenuRole.AboutRole)
        action.triggered.connect(lambda _checked=False: self.about.emit())
        self.about_action = action


def choose_theme(dark: bool) -> None:
    """Apply the dark (or light) theme now and remember it."""
    app = QtWidgets.QApplication.instance()
    if isinstance(app, QtWidgets.QApplication):
        apply_theme(app, dark)
    remember_theme(dark)
