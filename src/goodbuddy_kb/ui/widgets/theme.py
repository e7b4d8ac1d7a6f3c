"""The look, in one place: a light and a dark palette (Fusion) and one style sheet built from
the palette's colours, with clear disabled, focus, hover and selected states and one spacing
scale. Widgets never pick colours themselves; they set an object name (``fieldError``,
``backendBanner``, ``notice``, ``muted``) and the sheet styles it. Status reads as a symbol and
words everywhere, never colour alone.

The choice persists (QSettings ``theme``); GOODBUDDY_THEME=dark|light overrides it, and with
neither the system's colour scheme decides."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets

SETTINGS = ("GoodBuddy", "GoodBuddy KB")

#: Spacing scale (px) shared by layouts and the sheet.
SPACE = 8
#: The check mark drawn on a ticked box (white, on the accent colour in both themes).
CHECK_MARK = (Path(__file__).resolve().parent / "check.svg").as_posix()


@dataclass(frozen=True)
class Colours:
    window: str
    text: str
    base: str
    alternate: str
    button: str
    border: str
    accent: str
    accent_text: str
    hover: str
    muted: str
    disabled_text: str
    disabled_bg: str
    error_bg: str
    error_text: str
    notice_bg: str
    #: Text to double-check (low-confidence OCR lines): a shade and a wavy underline.
    doubt_bg: str
    doubt_line: str


LIGHT = Colours(
    window="#f4f5f7",
    text="#1d2330",
    base="#ffffff",
    alternate="#f7f8fa",
    button="#ffffff",
    border="#c9ced8",
    accent="#2f6fd6",
    accent_text="#ffffff",
    hover="#e8effb",
    muted="#5b6475",
    disabled_text="#9aa1ad",
    disabled_bg="#eceef2",
    error_bg="#fde8e8",
    error_text="#8a1414",
    notice_bg="#eaf2ff",
    doubt_bg="#fff0c2",
    doubt_line="#b26b00",
)
DARK = Colours(
    window="#1f2227",
    text="#e6e6e6",
    base="#15171b",
    alternate="#1b1e23",
    button="#2b2f36",
    border="#454b55",
    accent="#4a86e0",
    accent_text="#ffffff",
    hover="#333946",
    muted="#a3a9b4",
    disabled_text="#6b717c",
    disabled_bg="#25282e",
    error_bg="#4a1f22",
    error_text="#ffc9c9",
    notice_bg="#21324d",
    doubt_bg="#4a3b12",
    doubt_line="#ffb84d",
)


#: Node colours of the graph picture, one per entity type in ontology order (cycled); each
#: node also carries its type's name, so colour is never the only cue.
GRAPH_LIGHT = (
    "#4e79a7",
    "#e15759",
    "#59a14f",
    "#b07aa1",
    "#f28e2b",
    "#76b7b2",
    "#9c755f",
    "#edc948",
    "#ff9da7",
    "#86bcb6",
)
GRAPH_DARK = (
    "#6f9fd8",
    "#ff7b7d",
    "#7cc46f",
    "#d29ccd",
    "#ffaa55",
    "#8fd6d0",
    "#c79b82",
    "#f5d76e",
    "#ffb3bb",
    "#a3d6cf",
)


def graph_colour(index: int, app: QtWidgets.QApplication | None = None) -> str:
    """The picture's colour for the ``index``-th entity type in the current theme."""
    palette_ = GRAPH_DARK if current_colours(app) is DARK else GRAPH_LIGHT
    return palette_[index % len(palette_)]


def stored_theme() -> str:
    value = QtCore.QSettings(*SETTINGS).value("theme", "")
    return value if isinstance(value, str) else ""


def remember_theme(dark: bool) -> None:
    QtCore.QSettings(*SETTINGS).setValue("theme", "dark" if dark else "light")


def wants_dark(app: QtWidgets.QApplication) -> bool:
    choice = os.environ.get("GOODBUDDY_THEME", "").lower() or stored_theme()
    if choice in ("dark", "light"):
        return choice == "dark"
    hints = app.styleHints()
    return (
        bool(hints.colorScheme() == QtGui.Qt.ColorScheme.Dark)
        if hasattr(hints, "colorScheme")
        else False
    )


def current_colours(app: QtWidgets.QApplication | None = None) -> Colours:
    app = app or QtWidgets.QApplication.instance()  # type: ignore[assignment]
    return DARK if app is not None and app.property("darkTheme") else LIGHT


def doubt_format() -> QtGui.QTextCharFormat:
    """How text to double-check is marked inside a text view: a shade and a wavy underline
    (the words around it say what it means; the mark is never the only sign)."""
    c = current_colours()
    fmt = QtGui.QTextCharFormat()
    fmt.setBackground(QtGui.QColor(c.doubt_bg))
    fmt.setUnderlineStyle(QtGui.QTextCharFormat.UnderlineStyle.WaveUnderline)
    fmt.setUnderlineColor(QtGui.QColor(c.doubt_line))
    return fmt


def palette(c: Colours) -> QtGui.QPalette:
    role, group = QtGui.QPalette.ColorRole, QtGui.QPalette.ColorGroup
    p = QtGui.QPalette()
    for r, value in {
        role.Window: c.window,
        role.WindowText: c.text,
        role.Base: c.base,
        role.AlternateBase: c.alternate,
        role.Text: c.text,
        role.Button: c.button,
        role.ButtonText: c.text,
        role.Highlight: c.accent,
        role.HighlightedText: c.accent_text,
        role.ToolTipBase: c.base,
        role.ToolTipText: c.text,
        role.PlaceholderText: c.muted,
        role.Link: c.accent,
        role.Mid: c.border,
    }.items():
        p.setColor(r, QtGui.QColor(value))
    for r in (role.WindowText, role.Text, role.ButtonText):
        p.setColor(group.Disabled, r, QtGui.QColor(c.disabled_text))
    p.setColor(group.Disabled, role.Button, QtGui.QColor(c.disabled_bg))
    p.setColor(group.Disabled, role.Base, QtGui.QColor(c.disabled_bg))
    return p


def _mix(a: str, b: str, share: float) -> str:
    """``share`` of colour ``a`` over ``b`` (``#rrggbb``)."""
    x, y = QtGui.QColor(a), QtGui.QColor(b)
    return QtGui.QColor(
        round(share * x.red() + (1 - share) * y.red()),
        round(share * x.green() + (1 - share) * y.green()),
        round(share * x.blue() + (1 - share) * y.blue()),
    ).name()


def style_sheet(c: Colours) -> str:
    # A scroll bar's thumb half way between the muted text and its track: the palette's white
    # button on a light grey track was hard to find (found under Xvfb).
    thumb = _mix(c.muted, c.alternate, 0.55)
    return f"""
QPushButton, QToolButton {{
    background: {c.button}; color: {c.text}; border: 1px solid {c.border};
    border-radius: 4px; padding: 3px 8px; min-height: 20px;
}}
QPushButton:hover, QToolButton:hover {{ background: {c.hover}; border-color: {c.accent}; }}
QPushButton:pressed, QToolButton:pressed, QToolButton:checked {{
    background: {c.accent}; color: {c.accent_text}; border-color: {c.accent};
}}
QPushButton:default {{ border: 1px solid {c.accent}; }}
QPushButton:disabled, QToolButton:disabled {{
    background: {c.disabled_bg}; color: {c.disabled_text}; border: 1px dashed {c.border};
}}
QLineEdit, QPlainTextEdit, QTextBrowser {{
    background: {c.base}; color: {c.text}; border: 1px solid {c.border}; border-radius: 4px;
    padding: 2px 4px;
}}
QLineEdit:disabled {{
    background: {c.disabled_bg}; color: {c.disabled_text}; border-style: dashed;
}}
QTableView, QListView {{
    background: {c.base}; alternate-background-color: {c.alternate}; color: {c.text};
    border: 1px solid {c.border}; selection-background-color: {c.accent};
    selection-color: {c.accent_text};
}}
QTableView::item:hover, QListView::item:hover {{ background: {c.hover}; color: {c.text}; }}
QTableView::item:disabled, QListView::item:disabled {{ color: {c.disabled_text}; }}
QTableView::item:selected, QListView::item:selected {{
    background: {c.accent}; color: {c.accent_text};
}}
QHeaderView::section {{
    background: {c.window}; color: {c.muted}; border: none;
    border-bottom: 1px solid {c.border}; padding: 3px 6px; font-weight: bold;
}}
QPushButton:focus, QToolButton:focus, QLineEdit:focus, QPlainTextEdit:focus,
QTextBrowser:focus, QTableView:focus, QListView:focus {{
    border: 2px solid {c.accent};
}}
QCheckBox:focus {{ color: {c.accent}; }}
QCheckBox:disabled {{ color: {c.disabled_text}; }}
QCheckBox::indicator, QAbstractItemView::indicator {{
    width: 13px; height: 13px; border: 1px solid {c.muted}; border-radius: 3px;
    background: {c.base};
}}
QCheckBox::indicator:hover, QAbstractItemView::indicator:hover {{ border-color: {c.accent}; }}
QCheckBox::indicator:checked, QAbstractItemView::indicator:checked {{
    background: {c.accent}; border-color: {c.accent}; image: url({CHECK_MARK});
}}
QCheckBox::indicator:disabled, QAbstractItemView::indicator:disabled {{
    background: {c.disabled_bg}; border: 1px dashed {c.disabled_text};
}}
QCheckBox::indicator:checked:disabled, QAbstractItemView::indicator:checked:disabled {{
    background: {c.disabled_text}; border-color: {c.disabled_text}; image: url({CHECK_MARK});
}}
QCheckBox::indicator:indeterminate {{
    border-color: {c.accent};
    background: qlineargradient(x1:0, y1:0, x2:0, y2:1, stop:0 {c.base}, stop:0.34 {c.base},
        stop:0.35 {c.accent}, stop:0.65 {c.accent}, stop:0.66 {c.base}, stop:1 {c.base});
}}
QCheckBox::indicator:indeterminate:disabled {{
    border: 1px solid {c.disabled_text};
    background: qlineargradient(x1:0, y1:0, x2:0, y2:1, stop:0 {c.disabled_bg},
        stop:0.34 {c.disabled_bg}, stop:0.35 {c.disabled_text}, stop:0.65 {c.disabled_text},
        stop:0.66 {c.disabled_bg}, stop:1 {c.disabled_bg});
}}
QTabBar::tab {{ padding: 3px 10px; color: {c.muted}; border: 2px solid transparent; }}
QTabBar::tab:selected {{ color: {c.text}; border-bottom: 2px solid {c.accent}; }}
QTabBar::tab:hover {{ color: {c.text}; }}
QTabBar::tab:focus {{ border: 2px solid {c.accent}; }}
QGroupBox {{ font-weight: bold; border: 1px solid {c.border}; border-radius: 4px;
    margin-top: 10px; padding-top: 6px; }}
QGroupBox::title {{ subcontrol-origin: margin; left: 8px; padding: 0 4px; }}
QLabel#fieldError {{ color: {c.error_text}; background: {c.error_bg}; padding: 2px 4px; }}
QLabel#muted {{ color: {c.muted}; }}
QFrame#backendBanner {{ background: {c.error_bg}; color: {c.error_text}; }}
QFrame#backendBanner QLabel {{ color: {c.error_text}; }}
QLabel#notice {{ background: {c.notice_bg}; padding: 4px 6px; border-radius: 4px; }}
QLabel#ocrNote {{ background: {c.doubt_bg}; padding: 4px 6px; border-radius: 4px; }}
QFileDialog QToolButton {{ padding: 1px; min-height: 0px; }}
QPushButton#rowRebuildButton, QPushButton#retryButton, QPushButton#rowChunksButton {{
    padding: 0px 6px; min-height: 0px;
}}
QSplitter::handle {{ background: {c.border}; }}
QSplitter::handle:hover {{ background: {c.accent}; }}
QScrollBar:vertical {{ background: {c.alternate}; width: 12px; margin: 0; border: none; }}
QScrollBar:horizontal {{ background: {c.alternate}; height: 12px; margin: 0; border: none; }}
QScrollBar::handle {{ background: {thumb}; border-radius: 4px; margin: 2px; }}
QScrollBar::handle:vertical {{ min-height: 28px; }}
QScrollBar::handle:horizontal {{ min-width: 28px; }}
QScrollBar::handle:hover, QScrollBar::handle:pressed {{ background: {c.muted}; }}
QScrollBar::add-line, QScrollBar::sub-line {{ width: 0; height: 0; border: none; }}
QScrollBar::add-page, QScrollBar::sub-page {{ background: none; }}
"""


def apply_theme(app: QtWidgets.QApplication, dark: bool) -> None:
    app.setStyle("Fusion")
    colours = DARK if dark else LIGHT
    app.setProperty("darkTheme", dark)
    app.setPalette(palette(colours))
    app.setStyleSheet(style_sheet(colours))
