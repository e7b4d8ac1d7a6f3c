"""GUI entry: QApplication, language, the backend link and the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import detect_language, language, set_language, tr
from goodbuddy_kb.ui.i18n.qt_translations import install_qt_translations, use_qt_translations
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.theme import apply_theme, wants_dark

#: How long `--smoke` waits for the window's backend before it gives up (exit 2).
SMOKE_TIMEOUT_MS = 120_000


def run_gui(data_dir: Path, smoke: bool = False) -> int:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    assert isinstance(app, QtWidgets.QApplication)
    set_language(detect_language())
    use_qt_translations(app, language())
    apply_theme(app, wants_dark(app))
    app.setApplicationName(tr("app.title"))
    link = BackendLink(data_dir)
    window = MainWindow(link)
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
