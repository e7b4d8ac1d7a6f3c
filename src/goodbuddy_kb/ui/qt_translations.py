"""Qt's own words (file dialogs, Yes/No/OK/Cancel, text-field context menus) in the chosen
language, from the translations Qt ships; English needs none."""

from __future__ import annotations

from goodbuddy_kb.ui.qtw import QtCore, QtWidgets

#: What use_qt_translations installed last (removed when the language changes).
_installed: list[QtCore.QTranslator] = []


def install_qt_translations(app: QtWidgets.QApplication, language: str) -> list[QtCore.QTranslator]:
    """Install Qt's translations for ``language``; returns what it installed."""
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


def use_qt_translations(app: QtWidgets.QApplication, language: str) -> None:
    """Qt's words in ``language`` from now on (those of the previous language removed)."""
    while _installed:
        app.removeTranslator(_installed.pop())
    _installed.extend(install_qt_translations(app, language))
