"""Every dialog stays within its screen, title bar included: on a small screen
(800×600) the Diagnostics dialog opened 820 px wide, its Close button half off the edge, and the
chunk viewer and the workbench opened at the screen's full height under a title bar, their foot
and buttons below the screen (seen under Xvfb with a window manager).

An application-wide filter looks at each dialog when it is shown and again once the window
manager has framed it: a dialog whose frame reaches past the screen's available area is made
smaller (never below its minimum size) and moved in. The main window likewise, when it is first
shown only (then it keeps the geometry the person gives it): sized to the screen's available
area, its title bar pushed its foot, and with it the status bar where refusals are said, below
an 800×600 screen. Only the frame the window manager reports is counted, so a window without
one (tests' offscreen screen) is measured as it is."""

from __future__ import annotations

from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.widgets.wheel_guard import on_application

#: Set on a main window once it has been fitted (its first show).
_FITTED = "goodbuddyScreenFitted"
#: When to look again after a window is shown: the window manager frames it asynchronously.
RECHECK_MS = (0, 150)


def fit_within_screen(window: QtWidgets.QWidget) -> None:
    """Shrink and move ``window`` so that its frame lies within its screen's available area."""
    screen = window.screen()
    if screen is None or not window.isVisible() or window.isMaximized() or window.isFullScreen():
        return
    room = screen.availableGeometry()
    frame = window.frameGeometry()
    inner = window.geometry()
    if room.contains(frame):
        return
    extra_w = max(0, frame.width() - inner.width())
    extra_h = max(0, frame.height() - inner.height())
    least = window.minimumSize()
    width = max(least.width(), min(inner.width(), room.width() - extra_w))
    height = max(least.height(), min(inner.height(), room.height() - extra_h))
    if (width, height) != (inner.width(), inner.height()):
        window.resize(width, height)
    x = min(max(frame.x(), room.left()), max(room.left(), room.right() + 1 - width - extra_w))
    y = min(max(frame.y(), room.top()), max(room.top(), room.bottom() + 1 - height - extra_h))
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)


class ScreenFitter(QtCore.QObject):
    """An application-wide event filter (see `install_screen_fitter`)."""

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if (
            event.type() == QtCore.QEvent.Type.Show
            and isinstance(watched, (QtWidgets.QDialog, QtWidgets.QMainWindow))
            and watched.isWindow()
            and not (isinstance(watched, QtWidgets.QMainWindow) and watched.property(_FITTED))
        ):
            watched.setProperty(_FITTED, True)
            fit_within_screen(watched)
            shown = _margins(watched)
            # again once the window manager has framed it (its title bar), and only then: a
            # size the person (or a test) gives the dialog after it opened stays theirs
            for delay in RECHECK_MS:
                QtCore.QTimer.singleShot(
                    delay,
                    watched,
                    lambda w=watched, m=shown: _refit(w, m),
                )
        return False


def _refit(window: QtWidgets.QWidget, shown: tuple[int, int]) -> None:
    if _margins(window) != shown:
        fit_within_screen(window)


def _margins(window: QtWidgets.QWidget) -> tuple[int, int]:
    frame, inner = window.frameGeometry(), window.geometry()
    return frame.width() - inner.width(), frame.height() - inner.height()


def install_screen_fitter(owner: QtCore.QObject) -> ScreenFitter:
    """Install the filter on the application for as long as ``owner`` lives."""
    return on_application(ScreenFitter(owner))
