"""Where the person was in the main window — the selected library, the area, the library tab, the
window's geometry, the chat's conversation and unsent question — kept by the backend
(``system:window:update``, a moment after each change) and restored at the next launch."""

from __future__ import annotations

from typing import Protocol

from goodbuddy_kb.contracts import window as w
from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.methods import WINDOW_STATE_UPDATE
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.backend_link import BackendLink
from goodbuddy_kb.ui.chat.view import ChatView

#: How long the window waits after a change before keeping where the person is (ms).
KEEP_DELAY_MS = 300
#: How long closing waits for the backend to keep the last change (ms).
CLOSE_WAIT_MS = 1_000


class KeptWindow(Protocol):
    """What of the main window is kept."""

    link: BackendLink
    top_tabs: QtWidgets.QTabWidget
    tabs: QtWidgets.QTabWidget
    chat_view: ChatView

    def current_library_id(self) -> str | None: ...
    def saveGeometry(self) -> QtCore.QByteArray: ...
    def restoreGeometry(self, geometry: QtCore.QByteArray) -> bool: ...


class WindowKeeper(QtCore.QObject):
    """Keeps ``window``'s state through its link: nothing until ``restore`` (the state kept last
    is applied first), then each ``changed`` a moment later; an unchanged state is not sent."""

    #: The backend has kept where the person is (tests wait on it).
    kept = QtCore.Signal()

    def __init__(self, window: KeptWindow, parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self.window = window
        self.restored = False
        self._kept: w.WindowState | None = None
        self._keeping = False  # a state is on its way to the backend
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(KEEP_DELAY_MS)
        self._timer.timeout.connect(self.keep)

    def restore(self, state: w.WindowState | None) -> None:
        """Geometry, area, tab and the unsent question as last kept; from now on changes are
        kept."""
        win = self.window
        if state is not None:
            if state.geometry:
                win.restoreGeometry(QtCore.QByteArray.fromBase64(state.geometry.encode()))
            win.top_tabs.setCurrentIndex(w.AREAS.index(state.area))
            win.tabs.setCurrentIndex(w.LIBRARY_TABS.index(state.tab))
            if state.draft and not win.chat_view.input.toPlainText():
                win.chat_view.input.setPlainText(state.draft)
            if state.conversation_id and win.chat_view.conversation_id is None:
                # the one open at the quit, not the newest (a helper's try)
                win.chat_view.reopen(state.conversation_id)
            self._kept = state
        self.restored = True

    def state(self) -> w.WindowState:
        win = self.window
        geometry = bytes(win.saveGeometry().toBase64().data()).decode()
        return w.WindowState(
            library_id=win.current_library_id(),
            area=w.AREAS[max(0, win.top_tabs.currentIndex())],
            tab=w.LIBRARY_TABS[max(0, win.tabs.currentIndex())],
            geometry=geometry or None,
            draft=win.chat_view.input.toPlainText()[: w.MAX_DRAFT_CHARACTERS],
            conversation_id=win.chat_view.conversation_id,
        )

    def changed(self) -> None:
        if self.restored:
            self._timer.start()

    def keep(self) -> bool:
        """Have the backend keep where the person is now (unless it already has); whether a
        request went out."""
        self._timer.stop()
        state = self.state()
        link = self.window.link
        if not self.restored or state == self._kept or not link.alive:
            return False
        self._keeping = True

        def done(result: w.WindowState | None, error: KbError | None) -> None:
            self._keeping = False
            if result is not None:
                self._kept = result
                self.kept.emit()

        link.call(WINDOW_STATE_UPDATE, w.WindowStateUpdateRequest(state=state), done)
        return True

    def keep_before_closing(self) -> None:
        """A change not yet kept is kept now, waiting a moment for the backend (the link
        closes next)."""
        if self._timer.isActive() and self.keep():
            deadline = QtCore.QDeadlineTimer(CLOSE_WAIT_MS)
            while self._keeping and not deadline.hasExpired():
                QtCore.QCoreApplication.processEvents(
                    QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20
                )
