"""The main window's status bar: a message too long for it ends in "…", the whole of it in the
bar's tooltip (a rebuild's summary was cut mid-word at the window's edge: "… · 仍在等待重"; the
Tasks tab keeps every summary whole)."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets

#: Room kept free at the bar's right end (the size grip and the margins), in pixels.
RESERVED = 28


class ElidingStatusBar(QtWidgets.QStatusBar):
    def showMessage(self, text: str, /, timeout: int | None = 0) -> None:
        room = max(80, self.width() - RESERVED)
        shown = self.fontMetrics().elidedText(text, QtCore.Qt.TextElideMode.ElideRight, room)
        self.setToolTip(text if shown != text else "")
        super().showMessage(shown, timeout or 0)


def install(window: QtWidgets.QMainWindow) -> ElidingStatusBar:
    bar = ElidingStatusBar(window)
    window.setStatusBar(bar)
    return bar
