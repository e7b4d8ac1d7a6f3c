"""A page that scrolls up and down when the window is shorter than it: the library page with the
sample library's card above its tabs needed 640 px, so on an 800×600 screen the window grew
past the screen's foot (or, held to the screen, drew the document table's actions over its
rows). Never sideways: the page keeps its least width."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets


class PageLayout(QtWidgets.QVBoxLayout):
    """The page's layout: its height is what its parts need at least, whatever the width (a
    word-wrapped line's height for a width is what it would like, and the scroll area takes
    that as the least: at 800×600 the page scrolled, 12 px of its width gone to a scroll bar,
    with room to spare)."""

    def hasHeightForWidth(self) -> bool:
        return False


def scrolled_page(page: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    """``page`` (laid out with a ``PageLayout``) in a scroll area."""
    area = QtWidgets.QScrollArea()
    area.setWidget(page)
    area.setWidgetResizable(True)
    area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    # no Tab stop of its own: it showed no focus, and the page's parts are the stops (the area
    # still scrolls to the part that has the focus)
    area.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
    area.setMinimumWidth(page.minimumWidth() + area.verticalScrollBar().sizeHint().width())
    return area
