"""The walk over the Chinese screens: every word in Latin letters a person reads on a screen,
outside data (paths, file names, addresses, the documents' own text) and outside an allow-list
of names that stay as they are in Chinese (products, formats, model identifiers, units, keys)."""

from __future__ import annotations

import html
import re

from goodbuddy_kb.qt.widgets import QtWidgets
from tests.ui.helpers import visible_texts

#: Names a Chinese screen keeps in Latin letters: products and services, file formats and
#: protocols, model identifiers, units and keys.
ALLOWED = frozenset(
    [
        "GoodBuddy",
        "KB",
        "OCR",
        "PDF",
        "HTTP",
        "URL",
        "API",
        "JSON",
        "CSV",
        "RRF",
        "MCP",
        "OpenAI",
        "Ollama",
        "Claude",
        "Desktop",
        "Cursor",
        "Cherry",
        "Studio",
        "Windsurf",
        "VS",
        "Code",
        "Top",
        "K",
        "Word",
        "Excel",
        "RTF",
        "Markdown",
        "HTML",
        "EPUB",
        "SQLite",
        "XLSX",
        "ODS",
        "DOCX",
        "PPTX",
        "Base",
        "Ctrl",
        "Shift",
        "Enter",
        "Esc",
        "Tab",
        "Alt",
        "Key",
        "multilingual-e5-small",
        "e5",
        "rapidocr",
        "ms",
        "MB",
        "KB",
        "GB",
        "px",
        "AI",
    ]
)
#: Data: paths, file names, addresses and identifiers (anything with a slash, dot, colon, @
#: or underscore inside a token).
DATA = re.compile(r"\S*[/\\.:@_]\S*[A-Za-z0-9]\S*")
#: A program's own name for a failure (kept, on purpose, in tooltips) or a configuration key
#: to type as it is: CamelCase or camelCase.
TECHNICAL = re.compile(r"\b[A-Za-z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+\b")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


def latin_words(text: str) -> set[str]:
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    text = TECHNICAL.sub(" ", DATA.sub(" ", text))
    # a word with a digit in it is an identifier (a model's name: hashing-384, e5)
    return {w for w in WORD.findall(text) if w not in ALLOWED and not any(c.isdigit() for c in w)}


#: Chinese words joined the English way ("全文, 中文" rather than "全文、中文"; "图谱: 没有"
#: rather than "图谱：没有").
LATIN_LIST = re.compile(r"[\u4e00-\u9fff][)）]?[,:] [\u4e00-\u9fff]")


def english_on(root: QtWidgets.QWidget, data_columns: dict[int, set[int]]) -> dict[str, str]:
    """Each word not in Chinese on ``root`` → a text it stands in (for the failure message)."""
    found: dict[str, str] = {}
    for text in visible_texts(root, data_columns):
        for word in latin_words(text):
            found.setdefault(word, text[:160])
        if LATIN_LIST.search(text):
            found.setdefault("Latin punctuation", text[:160])
    return found


def assert_no_english(root: QtWidgets.QWidget, data_columns: dict[int, set[int]]) -> None:
    """No Latin word on ``root``, on each page of each of its tab widgets in turn."""
    found = english_on(root, data_columns)
    for tabs in root.findChildren(QtWidgets.QTabWidget):
        if not tabs.isVisibleTo(root):
            continue
        shown = tabs.currentIndex()
        for index in range(tabs.count()):
            tabs.setCurrentIndex(index)
            QtWidgets.QApplication.processEvents()
            found |= english_on(root, data_columns)
        tabs.setCurrentIndex(shown)
    assert not found, f"Latin words on the Chinese {root.__class__.__name__}: {found}"
