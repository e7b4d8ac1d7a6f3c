"""The mouse wheel scrolls pages, not settings: a combo box, spin box or slider changes with the
wheel only once a person has clicked or tabbed into it. Over one that has no focus the wheel
scrolls the page it sits in, as it would anywhere else on the page (scrolling down the
Settings tab used to switch the chunking mode it passed under the pointer)."""

from __future__ import annotations

from typing import TypeVar

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets

#: The widgets whose value the wheel changes.
_VALUED = (QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox, QtWidgets.QAbstractSlider)


class WheelGuard(QtCore.QObject):
    """An application-wide event filter (see `install_wheel_guard`)."""

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if not isinstance(watched, _VALUED) or isinstance(watched, QtWidgets.QScrollBar):
            return False
        if event.type() == QtCore.QEvent.Type.Polish:
            # the wheel must not give focus (Qt's WheelFocus), or the check below never holds
            if watched.focusPolicy() == QtCore.Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
            return False
        if event.type() != QtCore.QEvent.Type.Wheel or watched.hasFocus():
            return False
        area = _scroll_area(watched)
        if area is not None:
            QtWidgets.QApplication.sendEvent(area.verticalScrollBar(), event)
        return True


def _scroll_area(widget: QtWidgets.QWidget) -> QtWidgets.QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QtWidgets.QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def install_wheel_guard(owner: QtCore.QObject) -> WheelGuard:
    """Install the guard on the application for as long as ``owner`` lives."""
    return on_application(WheelGuard(owner))


F = TypeVar("F", bound=QtCore.QObject)


def on_application(event_filter: F) -> F:
    """``event_filter`` installed on the application (it lives as long as its parent)."""
    app = QtWidgets.QApplication.instance()
    if app is not None:
        app.installEventFilter(event_filter)
    return event_filter
