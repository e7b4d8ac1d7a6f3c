"""GUI entry: QApplication, language, the backend link and the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.i18n import detect_language, language, set_language, tr
from goodbuddy_kb.ui.main_window import MainWindow
from goodbuddy_kb.ui.qtw import QtCore, QtWidgets
from goodbuddy_kb.ui.theme import apply_theme, wants_dark


def install_qt_translations(app: QtWidgets.QApplication, language: str) -> list[QtCore.QTranslator]:
    """Qt's own words (file dialogs, Yes/No/OK/Cancel, text-field context menus) in the chosen
    language, from the translations Qt ships; English needs none. Returns what it installed."""
    if language != "zh":
        return []
    path = QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.TranslationsPath)
    locale = QtCore.QLocale(QtCore.QLocale.Language.Chinese, QtCore.QLocale.Country.China)
    installed = []
    for name in ("qtbase", "qt"):
        translator = QtCore.QTranslator(app)
        if translator.load(locale, name, "_", path) and app.installTranslator(translator):
            installed.append(translator)
    return installed


def run_gui(data_dir: Path) -> int:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    assert isinstance(app, QtWidgets.QApplication)
    set_language(detect_language())
    install_qt_translations(app, language())
    apply_theme(app, wants_dark(app))
    app.setApplicationName(tr("app.title"))
    link = BackendLink(data_dir)
    window = MainWindow(link)
    window.show()
    link.start()
    app.aboutToQuit.connect(link.shutdown)
    return app.exec()
