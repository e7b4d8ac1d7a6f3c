"""Light and dark themes (Fusion palettes); GOODBUDDY_THEME=dark|light overrides the system."""

from __future__ import annotations

import os

from goodbuddy_kb.ui.qtw import QtGui, QtWidgets


def wants_dark(app: QtWidgets.QApplication) -> bool:
    choice = os.environ.get("GOODBUDDY_THEME", "").lower()
    if choice in ("dark", "light"):
        return choice == "dark"
    hints = app.styleHints()
    return (
        bool(hints.colorScheme() == QtGui.Qt.ColorScheme.Dark)
        if hasattr(hints, "colorScheme")
        else False
    )


def apply_theme(app: QtWidgets.QApplication, dark: bool) -> None:
    app.setStyle("Fusion")
    palette = QtGui.QPalette()
    if dark:
        role = QtGui.QPalette.ColorRole
        colors = {
            role.Window: "#1f2227",
            role.WindowText: "#e6e6e6",
            role.Base: "#15171b",
            role.AlternateBase: "#23262c",
            role.Text: "#e6e6e6",
            role.Button: "#2b2f36",
            role.ButtonText: "#e6e6e6",
            role.Highlight: "#3d7bd9",
            role.HighlightedText: "#ffffff",
            role.ToolTipBase: "#2b2f36",
            role.ToolTipText: "#e6e6e6",
            role.PlaceholderText: "#8a8f98",
            role.Link: "#7fb0ff",
        }
        for r, value in colors.items():
            palette.setColor(r, QtGui.QColor(value))
    app.setPalette(palette)
    # A visible focus ring for keyboard users, in both themes.
    app.setStyleSheet(
        "*:focus { outline: 2px solid #3d7bd9; } QPushButton:focus, QLineEdit:focus, QPlainTextEdit:focus, QComboBox:focus, QSpinBox:focus, QDoubleSpinBox:focus, QTableView:focus, QListView:focus { border: 2px solid #3d7bd9; }"
    )
