"""Two QLocalSocket clients over the same wire rules.

``BlockingClient`` waits for each reply (the CLI, tests, benchmarks). ``AsyncClient`` never blocks
the GUI thread: replies arrive through callbacks, notifications and disconnection through signals.
Both authenticate first and validate every reply against the method table.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, TypeVar

from goodbuddy_kb.bridge.protocol import error_of, params_of, result_of
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import (
    KbError,
    TimeoutError_,
    UnavailableError,
)
from goodbuddy_kb.contracts.methods import MethodSpec
from goodbuddy_kb.contracts.wire import (
    AUTHENTICATE,
    GUI_CLIENT,
    AuthenticateParams,
    FrameDecoder,
    encode_frame,
    request_message,
)
from goodbuddy_kb.qt import QtCore, QtNetwork

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)
Notification = tuple[str, dict[str, Any]]

CONNECT_TIMEOUT_MS = 2_000
DEFAULT_CALL_TIMEOUT_S = 60.0
#: Longest single blocking wait on the socket (see read_message).
WAIT_SLICE_MS = 10


def _ensure_core_app() -> None:
    if QtCore.QCoreApplication.instance() is None:
        QtCore.QCoreApplication([])


class BlockingClient:
    def __init__(self, server_name: str, secret: str, client_name: str = "cli") -> None:
        _ensure_core_app()
        self._server_name = server_name
        self._secret = secret
        self._client_name = client_name
        self._socket = QtNetwork.QLocalSocket()
        self._decoder = FrameDecoder()
        self._ids = itertools.count(1)
        self._backlog: list[dict[str, Any]] = []
        self.notifications: list[Notification] = []

    def open(self) -> BlockingClient:
        """Connect and authenticate."""
        return self.connect().authenticate()

    def connect(self) -> BlockingClient:
        """Reach the backend's socket (nothing is asked yet)."""
        self._socket.connectToServer(self._server_name)
        if not self._socket.waitForConnected(CONNECT_TIMEOUT_MS):
            raise UnavailableError(f"cannot reach the backend: {self._socket.errorString()}")
        return self

    def authenticate(self) -> BlockingClient:
        """Say who this client is, with the launch's secret."""
        reply = self._roundtrip(
            AUTHENTICATE,
            AuthenticateParams(secret=self._secret, client=self._client_name).to_wire(),
            DEFAULT_CALL_TIMEOUT_S,
        )
        if "error" in reply:
            self.close()
            raise error_of(reply)
        return self

    @property
    def connected(self) -> bool:
        return self._socket.state() == QtNetwork.QLocalSocket.LocalSocketState.ConnectedState

    def call(self, spec: MethodSpec[Req, Resp], request: Req, timeout: float | None = None) -> Resp:
        reply = self._roundtrip(
            spec.name, params_of(spec, request), timeout or DEFAULT_CALL_TIMEOUT_S
        )
        return result_of(spec, reply)

    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (tests of the server's framing rules use this)."""
        self._socket.write(data)
        self._socket.flush()

    def read_message(self, timeout: float = DEFAULT_CALL_TIMEOUT_S) -> dict[str, Any]:
        """The next message of any kind from the backend."""
        if self._backlog:
            return self._backlog.pop(0)
        deadline = QtCore.QDeadlineTimer(int(timeout * 1000))
        while True:
            if self._socket.bytesAvailable() == 0:
                if self._socket.state() != QtNetwork.QLocalSocket.LocalSocketState.ConnectedState:
                    raise UnavailableError("the backend closed the connection")
                # Short slices: the binding holds the GIL inside waitForReadyRead, and other
                # threads of this process (loopback servers, workers) must keep running.
                if not self._socket.waitForReadyRead(
                    max(1, min(WAIT_SLICE_MS, deadline.remainingTime()))
                ):
                    if (
                        self._socket.state()
                        != QtNetwork.QLocalSocket.LocalSocketState.ConnectedState
                    ):
                        raise UnavailableError("the backend closed the connection")
                    if deadline.hasExpired():
                        raise TimeoutError_("the backend did not answer in time")
                    continue
            data = bytes(self._socket.readAll().data())
            self._backlog.extend(self._decoder.feed(data))
            if self._backlog:
                return self._backlog.pop(0)

    def next_notification(self, timeout: float) -> Notification:
        """The next server notification (those that arrived during calls come first)."""
        if self.notifications:
            return self.notifications.pop(0)
        while True:
            message = self.read_message(timeout)
            if "id" not in message and "method" in message:
                return (str(message["method"]), dict(message.get("params", {})))

    def _roundtrip(self, method: str, params: dict[str, Any], timeout: float) -> dict[str, Any]:
        msg_id = next(self._ids)
        self.send_raw(encode_frame(request_message(msg_id, method, params)))
        while True:
            message = self.read_message(timeout)
            if "id" not in message and "method" in message:
                self.notifications.append((str(message["method"]), dict(message.get("params", {}))))
                continue
            if message.get("id") in (msg_id, None):
                return message

    def close(self) -> None:
        self._socket.abort()

    def __enter__(self) -> BlockingClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: What a GUI call hands its answer to: the method's response model, or the error.
Callback = Callable[[Resp | None, KbError | None], None]


class AsyncClient(QtCore.QObject):
    """Event-driven client for the GUI thread; a dead backend fails every pending call at once."""

    notified = QtCore.Signal(str, dict)
    disconnected = QtCore.Signal(str)

    def __init__(self, server_name: str, secret: str, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._server_name = server_name
        self._secret = secret
        self._socket = QtNetwork.QLocalSocket(self)
        self._decoder = FrameDecoder()
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[MethodSpec[Any, Any], Callback[Any]]] = {}
        self._alive = False

    def open(self) -> None:
        """Connect and authenticate (a brief, bounded wait on a local socket), then go async."""
        self._socket.connectToServer(self._server_name)
        if not self._socket.waitForConnected(CONNECT_TIMEOUT_MS):
            raise UnavailableError(f"cannot reach the backend: {self._socket.errorString()}")
        auth = AuthenticateParams(secret=self._secret, client=GUI_CLIENT).to_wire()
        self._socket.write(encode_frame(request_message(0, AUTHENTICATE, auth)))
        self._socket.flush()
        reply: dict[str, Any] | None = None
        deadline = QtCore.QDeadlineTimer(5_000)
        while reply is None and not deadline.hasExpired():
            if not self._socket.waitForReadyRead(max(1, deadline.remainingTime())):
                break
            messages = self._decoder.feed(bytes(self._socket.readAll().data()))
            reply = messages[0] if messages else None
        if reply is None:
            raise UnavailableError("the backend did not answer the handshake")
        if "error" in reply:
            raise error_of(reply)
        self._alive = True
        self._socket.readyRead.connect(self._on_ready_read)
        self._socket.disconnected.connect(self._on_disconnected)
        self._socket.errorOccurred.connect(lambda *_: self._on_disconnected())

    @property
    def alive(self) -> bool:
        return self._alive

    def call(self, spec: MethodSpec[Req, Resp], request: Req, callback: Callback[Resp]) -> None:
        if not self._alive:
            callback(None, UnavailableError("the backend is not running"))
            return
        try:
            params = params_of(spec, request)
            msg_id = next(self._ids)
            frame = encode_frame(request_message(msg_id, spec.name, params))
        except KbError as exc:
            callback(None, exc)
            return
        self._pending[msg_id] = (spec, callback)
        self._socket.write(frame)

    def close(self) -> None:
        self._alive = False
        self._socket.abort()

    def _on_ready_read(self) -> None:
        try:
            messages = self._decoder.feed(bytes(self._socket.readAll().data()))
        except KbError as exc:
            self._fail_all(exc)
            self._socket.abort()
            return
        for message in messages:
            if "id" not in message and isinstance(message.get("method"), str):
                self.notified.emit(message["method"], dict(message.get("params", {})))
                continue
            entry = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
            if entry is None:
                continue
            spec, callback = entry
            try:
                callback(result_of(spec, message), None)
            except KbError as exc:
                callback(None, exc)

    def _on_disconnected(self) -> None:
        if not self._alive:
            return
        self._alive = False
        self._fail_all(UnavailableError("the backend stopped"))
        self.disconnected.emit("the backend stopped")

    def _fail_all(self, error: KbError) -> None:
        pending, self._pending = self._pending, {}
        for _spec, callback in pending.values():
            callback(None, error)
