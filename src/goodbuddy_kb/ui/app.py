"""GUI entry: the application's identity (name, organisation, version, icon), language, one
window per data directory, the backend link and the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from goodbuddy_kb import __version__
from goodbuddy_kb.notices import APPLICATION_NAME, ORGANISATION_NAME
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import detect_language, language, set_language
from goodbuddy_kb.ui.i18n.qt_translations import install_qt_translations, use_qt_translations
from goodbuddy_kb.ui.instance import WindowActivation, activate_existing
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.app_icon import app_icon
from goodbuddy_kb.ui.widgets.theme import apply_theme, wants_dark

#: How long `--smoke` waits for the window's backend before it gives up (exit 2).
SMOKE_TIMEOUT_MS = 120_000
#: The desktop entry the window belongs to (``goodbuddy-kb.desktop``).
DESKTOP_FILE = "goodbuddy-kb"


def identify(app: QtWidgets.QApplication) -> None:
    app.setApplicationName(APPLICATION_NAME)
    app.setOrganizationName(ORGANISATION_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(DESKTOP_FILE)
    app.setWindowIcon(app_icon())


def run_gui(data_dir: Path, smoke: bool = False) -> int:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    assert isinstance(app, QtWidgets.QApplication)
    identify(app)
    if activate_existing(data_dir):
        return 0  # the window already open on this data directory came to the front
    activation = WindowActivation(data_dir, app)
    activation.listen()
    set_language(detect_language())
    use_qt_translations(app, language())
    apply_theme(app, wants_dark(app))
    link = BackendLink(data_dir)
    window = MainWindow(link)
    activation.activated.connect(window.bring_to_front)
    window.show()
    link.start()
    app.aboutToQuit.connect(link.shutdown)
    if smoke:
        _close_when_connected(app, window, link)
    return app.exec()


def _close_when_connected(
    app: QtWidgets.QApplication, window: MainWindow, link: BackendLink
) -> None:
    """`--smoke`: an installation check that the window shows and its backend answers."""

    def finish(code: int) -> None:
        window.close()
        app.exit(code)

    link.connected.connect(lambda _pid: QtCore.QTimer.singleShot(0, lambda: finish(0)))

    def failed(reason: str) -> None:
        print(f"the backend did not start: {reason}", file=sys.stderr)
        finish(1)

    link.stopped.connect(failed)
    QtCore.QTimer.singleShot(SMOKE_TIMEOUT_MS, lambda: finish(2))


__all__ = ["install_qt_translations", "run_gui"]
