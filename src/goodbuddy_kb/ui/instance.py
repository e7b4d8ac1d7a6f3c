"""One window per data directory: a second `goodbuddy-kb` on a directory whose window is open
brings that window to the front and exits, instead of opening a second window.

The first window listens on a local socket named after the user and the data directory
(owner-only); a later start connects, sends ``activate`` and waits for ``ok``. A name left by a
crashed window answers nobody: it is removed and taken over."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from goodbuddy_kb.qt import QtCore, QtNetwork

ACTIVATE = b"activate\n"
ANSWER = b"ok\n"
#: How long a later start waits for the open window (ms).
WAIT_MS = 2_000


def server_name(data_dir: Path) -> str:
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    digest = hashlib.sha256(f"{user}\0{data_dir}".encode()).hexdigest()[:24]
    return f"goodbuddy-kb-window-{digest}"


def activate_existing(data_dir: Path) -> bool:
    """Ask the window open on ``data_dir`` to come to the front; whether one answered."""
    socket = QtNetwork.QLocalSocket()
    socket.connectToServer(server_name(data_dir))
    if not socket.waitForConnected(WAIT_MS // 4):
        return False
    socket.write(ACTIVATE)
    socket.waitForBytesWritten(WAIT_MS)
    answered = socket.waitForReadyRead(WAIT_MS) and bytes(socket.readAll().data()) == ANSWER
    socket.disconnectFromServer()
    return answered


class WindowActivation(QtCore.QObject):
    """The open window's end: ``activated`` when a later start asks for it."""

    activated = QtCore.Signal()

    def __init__(self, data_dir: Path, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._name = server_name(data_dir)
        self.server = QtNetwork.QLocalServer(self)
        self.server.setSocketOptions(QtNetwork.QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)

    def listen(self) -> bool:
        """Take the name (a crashed window's leftover is removed first); whether it worked."""
        if self.server.listen(self._name):
            return True
        QtNetwork.QLocalServer.removeServer(self._name)
        return self.server.listen(self._name)

    def _on_connection(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(lambda s=socket: self._read(s))
            socket.disconnected.connect(socket.deleteLater)

    def _read(self, socket: QtNetwork.QLocalSocket) -> None:
        if socket.canReadLine() and bytes(socket.readLine().data()) == ACTIVATE:
            socket.write(ANSWER)
            socket.flush()
            self.activated.emit()
