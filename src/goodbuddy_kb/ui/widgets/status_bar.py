"""The main window's status bar: a message too long for it ends in "…", the whole of it in the
bar's tooltip (a rebuild's summary was cut mid-word at the window's edge: "… · 仍在等待重"; the
Tasks tab keeps every summary whole)."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets

#: Room kept free at the bar's right end (the size grip and the margins), in pixels.
RESERVED = 28


class ElidingStatusBar(QtWidgets.QStatusBar):
    #: The widget at the bar's right end, if any (its room is not the message's).
    corner: QtWidgets.QWidget | None = None

    def showMessage(self, text: str, /, timeout: int | None = 0) -> None:
        shown = text
        if self.isVisible():  # laid out: before, its width said nothing ("Starting th…")
            corner = self.corner
            taken = corner.width() if corner is not None and corner.isVisible() else 0
            room = max(80, self.width() - RESERVED - taken)
            shown = self.fontMetrics().elidedText(text, QtCore.Qt.TextElideMode.ElideRight, room)
        self.setToolTip(text if shown != text else "")
        super().showMessage(shown, timeout or 0)


def install(
    window: QtWidgets.QMainWindow, corner: QtWidgets.QWidget | None = None
) -> ElidingStatusBar:
    """The bar, with ``corner`` at its right end (never covered by a notice)."""
    bar = ElidingStatusBar(window)
    window.setStatusBar(bar)
    if corner is not None:
        bar.addPermanentWidget(corner)
        bar.corner = corner
    return bar
