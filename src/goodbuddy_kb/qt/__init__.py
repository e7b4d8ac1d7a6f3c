"""The one module through which the project imports Qt (PySide6).

Keeping the binding behind one name means a binding switch or a version shim touches one file.
The GUI uses the widget classes; the backend and the bridge use only QtCore and QtNetwork.
"""

from __future__ import annotations

from PySide6 import QtCore, QtNetwork

__all__ = ["QtCore", "QtNetwork"]
