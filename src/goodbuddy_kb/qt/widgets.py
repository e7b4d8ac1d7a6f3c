"""Qt widget imports for the GUI, next to the core ones from :mod:`goodbuddy_kb.qt`."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from goodbuddy_kb.qt import QtCore, QtNetwork

__all__ = ["QtCore", "QtGui", "QtNetwork", "QtWidgets"]
