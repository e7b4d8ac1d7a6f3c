"""GUI entry: QApplication, language, the backend link and the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import detect_language, language, set_language, tr
from goodbuddy_kb.ui.i18n.qt_translations import install_qt_translations, use_qt_translations
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.theme import apply_theme, wants_dark


def run_gui(data_dir: Path) -> int:
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
    return app.exec()


__all__ = ["install_qt_translations", "run_gui"]
