"""Qt's own words (file dialogs, Yes/No/OK/Cancel, text-field context menus) in the chosen
language, from the translations Qt ships; English needs none.

Qt 6's widget file dialog asks for a few strings its zh_CN catalogue does not hold: the labels
gained mnemonics ("&Look in:", "Files of &type:") and the file-type column moved to
``QAbstractFileIconProvider`` ("Folder", "Drive"), while ``qtbase_zh_CN.qm`` still has the
Qt 5 forms under ``QFileDialog``. ``CatalogueGapsTranslator`` answers those from Qt's own older
entries (adding the mnemonic Qt's way, "查找范围(&L)："), so no wording is invented here.

The file types the dialog lists ("Markdown 文档") come from the MIME database in the default
locale's language, so the default locale follows the app's language too. Dates in the dialog
follow the system locale (Qt reads it there), which the app leaves alone.
"""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets

#: What use_qt_translations installed last (removed when the language changes).
_installed: list[QtCore.QTranslator] = []

#: (context, source Qt 6 asks for) → (context, source the catalogue holds, mnemonic to add).
CATALOGUE_GAPS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("QFileDialog", "&Look in:"): ("QFileDialog", "Look in:", "L"),
    ("QFileDialog", "Files of &type:"): ("QFileDialog", "Files of type:", "T"),
    ("QAbstractFileIconProvider", "Folder"): ("QFileDialog", "Folder", ""),
    ("QAbstractFileIconProvider", "Drive"): ("QFileDialog", "Drive", ""),
}


def with_mnemonic(text: str, key: str) -> str:
    """Qt's Chinese form of a label with a mnemonic: "文件类型：" → "文件类型(&T)："."""
    if not key:
        return text
    for colon in ("：", ":"):
        if text.endswith(colon):
            return f"{text[: -len(colon)]}(&{key}){colon}"
    return f"{text}(&{key})"


class CatalogueGapsTranslator(QtCore.QTranslator):
    """Answers the strings of ``CATALOGUE_GAPS`` from ``catalogue`` (Qt's own translation)."""

    def __init__(self, catalogue: QtCore.QTranslator, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._catalogue = catalogue

    def translate(
        self,
        context: str,
        source_text: str,
        disambiguation: str | None = None,
        n: int = -1,
    ) -> str:
        gap = CATALOGUE_GAPS.get((context, source_text))
        if gap is None:
            return ""
        old_context, old_source, mnemonic = gap
        text = self._catalogue.translate(old_context, old_source)
        return with_mnemonic(text, mnemonic) if text else ""

    def isEmpty(self) -> bool:
        return False


def default_locale(language: str) -> QtCore.QLocale:
    """The locale Qt's own lists speak in: Chinese for zh; for en the system's, unless that is
    Chinese (then US English)."""
    if language == "zh":
        return QtCore.QLocale(QtCore.QLocale.Language.Chinese, QtCore.QLocale.Country.China)
    system = QtCore.QLocale.system()
    if system.language() == QtCore.QLocale.Language.Chinese:
        return QtCore.QLocale(QtCore.QLocale.Language.English, QtCore.QLocale.Country.UnitedStates)
    return system


def install_qt_translations(app: QtWidgets.QApplication, language: str) -> list[QtCore.QTranslator]:
    """Install Qt's translations for ``language``; returns what it installed."""
    QtCore.QLocale.setDefault(default_locale(language))
    if language != "zh":
        return []
    path = QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.TranslationsPath)
    locale = default_locale(language)
    loaded = []
    for name in ("qtbase", "qt"):
        translator = QtCore.QTranslator(app)
        if translator.load(locale, name, "_", path):
            loaded.append(translator)
    if not loaded:
        return []
    # Installed first, so Qt asks it only for what the catalogues left untranslated.
    installed: list[QtCore.QTranslator] = [CatalogueGapsTranslator(loaded[0], app)]
    installed += loaded
    return [t for t in installed if app.installTranslator(t)]


def use_qt_translations(app: QtWidgets.QApplication, language: str) -> None:
    """Qt's words in ``language`` from now on (those of the previous language removed)."""
    while _installed:
        app.removeTranslator(_installed.pop())
    _installed.extend(install_qt_translations(app, language))
