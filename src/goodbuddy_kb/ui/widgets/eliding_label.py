"""A one-line label that gives way with "…" instead of being cut off mid-word."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets


class ElidingLabel(QtWidgets.QLabel):
    """A one-line label that ends in "…" when its room is short (its tooltip then holds the
    whole text) instead of being cut off mid-word by the widgets beside it."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        # its whole width when there is room, down to a few characters when there is not
        self.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Fixed
        )

    def setText(self, text: str) -> None:
        self._full = text
        self.updateGeometry()  # the layout asks the new text's width again
        self._elide()

    def full_text(self) -> str:
        return self._full

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        return QtCore.QSize(self.fontMetrics().horizontalAdvance(self._full) + 4, hint.height())

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(min(60, self.sizeHint().width()), super().minimumSizeHint().height())

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(
            self._full, QtCore.Qt.TextElideMode.ElideRight, max(0, self.width())
        )
        super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
        self.setAccessibleName(self._full)
