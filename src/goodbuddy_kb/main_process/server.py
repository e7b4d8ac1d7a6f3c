"""The JSON-RPC 2.0 server on a QLocalServer: authentication, frames, dispatch, notifications.

Each connection must authenticate with the per-launch secret before anything else; a client
that does not gets ``unauthorized`` and is disconnected, and no handler runs for it. Handlers run
off the Qt thread: reads on a small pool, mutations on a single writer thread (one writer for
SQLite). Replies come back to the Qt thread through a queued signal.
"""

from __future__ import annotations

import hmac
import itertools
import logging
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.contracts.errors import (
    InternalError,
    InvalidRequestError,
    KbError,
    PayloadTooLargeError,
    UnauthorizedError,
    UnavailableError,
)
from goodbuddy_kb.contracts.limits import (
    AUTH_TIMEOUT_SECONDS,
    MAX_INFLIGHT_PER_CONNECTION,
    MAX_QUEUED_REPLY_BYTES,
    SHUTDOWN_GRACE_SECONDS,
)
from goodbuddy_kb.contracts.methods import NOTIFY_CHANGED, ChangedParams
from goodbuddy_kb.contracts.wire import (
    API_VERSION,
    AUTHENTICATE,
    EXTERNAL_CLIENT,
    AuthenticateParams,
    FrameDecoder,
    encode_frame,
    error_message,
    message_id,
    notification_message,
    result_message,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher, Outcome
from goodbuddy_kb.qt import QtCore, QtNetwork

log = logging.getLogger(__name__)


class _Relay(QtCore.QObject):
    """Carries finished outcomes and notifications from worker threads to the Qt thread."""

    finished = QtCore.Signal(int, object)
    notify = QtCore.Signal(str, object)


@dataclass
class _Connection:
    serial: int
    socket: QtNetwork.QLocalSocket
    decoder: FrameDecoder = field(default_factory=FrameDecoder)
    authenticated: bool = False
    closing: bool = False
    client: str = ""
    #: Requests of this connection submitted and not yet answered.
    inflight: int = 0


class BridgeServer(QtCore.QObject):
    #: The last GUI connection closed (the app stops if its launcher has gone too).
    #: The last authenticated client (window, command line, MCP server) disconnected.
    last_client_left = QtCore.Signal()

    def __init__(self, secret: str, server_name: str) -> None:
        super().__init__()
        self._dispatcher: Dispatcher | None = None
        self._secret = secret.encode("utf-8")
        self._name = server_name
        self._server = QtNetwork.QLocalServer(self)
        self._server.setSocketOptions(QtNetwork.QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._on_new_connection)
        self._connections: dict[int, _Connection] = {}
        self._serials = itertools.count(1)
        self._reads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kb-read")
        self._writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-write")
        self._inflight: set[Future[Outcome]] = set()
        self._relay = _Relay()
        self._relay.finished.connect(self._on_finished)
        self._relay.notify.connect(self.broadcast)
        self._accepting = True

    def attach(self, dispatcher: Dispatcher) -> None:
        self._dispatcher = dispatcher

    def notify_threadsafe(self, method: str, params: dict[str, Any]) -> None:
        """Broadcast a notification from any thread (delivered on the Qt thread)."""
        self._relay.notify.emit(method, params)

    # -- lifecycle -------------------------------------------------------------------------
    def listen(self) -> str:
        QtNetwork.QLocalServer.removeServer(self._name)
        if not self._server.listen(self._name):
            raise UnavailableError(f"cannot listen on local socket: {self._server.errorString()}")
        return self._server.fullServerName()

    def shutdown(self, grace: float = SHUTDOWN_GRACE_SECONDS) -> None:
        """Stop accepting, let in-flight requests finish within ``grace`` seconds, disconnect."""
        self._accepting = False
        self._server.close()
        deadline = time.monotonic() + grace
        if self._inflight:
            wait_futures(list(self._inflight), timeout=max(0.0, deadline - time.monotonic()))
        app = QtCore.QCoreApplication.instance()
        while app is not None and time.monotonic() < deadline:
            app.processEvents()  # deliver finished replies
            if not self._inflight:
                break
            time.sleep(0.01)
        for conn in list(self._connections.values()):
            conn.socket.flush()
            conn.socket.waitForBytesWritten(200)
            conn.socket.disconnectFromServer()
        self._reads.shutdown(wait=False, cancel_futures=True)
        self._writes.shutdown(wait=False, cancel_futures=True)

    # -- connections -----------------------------------------------------------------------
    def _on_new_connection(self) -> None:
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            conn = _Connection(next(self._serials), socket)
            self._connections[conn.serial] = conn
            socket.readyRead.connect(lambda c=conn: self._on_ready_read(c))
            socket.disconnected.connect(lambda c=conn: self._forget(c))
            QtCore.QTimer.singleShot(
                int(AUTH_TIMEOUT_SECONDS * 1000), lambda c=conn: self._auth_deadline(c)
            )

    def _forget(self, conn: _Connection) -> None:
        self._connections.pop(conn.serial, None)
        conn.socket.deleteLater()
        if not self.connections_open():
            self.last_client_left.emit()

    def clients_connected(self) -> list[str]:
        """The names of the authenticated clients still connected (``gui``, ``cli``, ``mcp``)."""
        return [c.client for c in self._connections.values() if c.authenticated and not c.closing]

    def connections_open(self) -> int:
        """Connections still open, authenticated or still authenticating: a command that has
        just attached (its socket connected, its authentication not yet read) counts, so the
        backend never stops under it; one that never authenticates is refused at its deadline
        and then no longer counts."""
        return sum(1 for c in self._connections.values() if not c.closing)

    def _auth_deadline(self, conn: _Connection) -> None:
        if conn.serial in self._connections and not conn.authenticated:
            self._refuse(conn, None, UnauthorizedError("authentication timed out"))

    def _refuse(self, conn: _Connection, msg_id: Any, error: KbError) -> None:
        """Send one error and drop the connection; nothing else from it will be read."""
        conn.closing = True
        self._send(conn, error_message(msg_id, error))
        conn.socket.flush()
        conn.socket.disconnectFromServer()

    def _send(self, conn: _Connection, message: dict[str, Any]) -> None:
        try:
            frame = encode_frame(message)
        except PayloadTooLargeError as exc:
            frame = encode_frame(error_message(message.get("id"), exc))
        conn.socket.write(frame)
        unread = conn.socket.bytesToWrite()
        if unread > MAX_QUEUED_REPLY_BYTES:
            # A client that asks and never reads would grow the backend's memory without end.
            self._drop(conn, f"{unread} bytes of replies left unread")

    def _drop(self, conn: _Connection, reason: str) -> None:
        """Cut a misbehaving connection at once (nothing more is sent or read)."""
        log.warning("dropping client connection %d: %s", conn.serial, reason)
        conn.closing = True
        conn.socket.abort()

    # -- requests --------------------------------------------------------------------------
    def _on_ready_read(self, conn: _Connection) -> None:
        if conn.closing:
            conn.socket.readAll()
            return
        try:
            self._read_frames(conn)
        except Exception:
            # Every frame gets an answer or a disconnect, never silence (a Qt slot would
            # swallow the exception and leave the client waiting).
            log.exception("a frame of client connection %d could not be handled", conn.serial)
            if not conn.closing:
                self._refuse(conn, None, InternalError("the request could not be handled"))

    def _read_frames(self, conn: _Connection) -> None:
        try:
            messages = conn.decoder.feed(bytes(conn.socket.readAll().data()))
        except KbError as exc:
            self._refuse(conn, None, exc)
            return
        for message in messages:
            if conn.closing:
                return
            if not conn.authenticated:
                self._authenticate(conn, message)
            else:
                self._submit(conn, message)

    def _authenticate(self, conn: _Connection, message: dict[str, Any]) -> None:
        msg_id = message_id(message)
        if message.get("method") != AUTHENTICATE:
            self._refuse(conn, msg_id, UnauthorizedError("authenticate first"))
            return
        try:
            params = AuthenticateParams.model_validate(message.get("params", {}))
        except ValidationError:
            self._refuse(conn, msg_id, UnauthorizedError("missing or malformed secret"))
            return
        if not hmac.compare_digest(params.secret.encode("utf-8"), self._secret):
            self._refuse(conn, msg_id, UnauthorizedError("wrong secret"))
            return
        conn.authenticated = True
        conn.client = params.client
        self._send(conn, result_message(msg_id, {"apiVersion": API_VERSION}))

    def _submit(self, conn: _Connection, message: dict[str, Any]) -> None:
        msg_id = message_id(message)
        if message.get("method") == AUTHENTICATE:
            self._send(conn, error_message(msg_id, InvalidRequestError("already authenticated")))
            return
        if not self._accepting:
            self._send(
                conn, error_message(msg_id, UnavailableError("the backend is shutting down"))
            )
            return
        dispatcher = self._dispatcher
        if dispatcher is None:
            self._send(conn, error_message(msg_id, UnavailableError("the backend is starting")))
            return
        if conn.inflight >= MAX_INFLIGHT_PER_CONNECTION:
            self._send(
                conn,
                error_message(
                    msg_id,
                    UnavailableError(
                        f"too many requests at once on this connection (at most"
                        f" {MAX_INFLIGHT_PER_CONNECTION}); wait for replies first"
                    ),
                ),
            )
            return
        spec = dispatcher.spec_of(message)
        if conn.client == EXTERNAL_CLIENT and spec is not None and not spec.external:
            self._send(
                conn,
                error_message(
                    msg_id, UnauthorizedError("an external-tool connection cannot call this method")
                ),
            )
            return
        pool = self._writes if spec is not None and spec.mutates else self._reads
        future = pool.submit(dispatcher.dispatch, message)
        self._inflight.add(future)
        conn.inflight += 1
        serial = conn.serial
        future.add_done_callback(lambda f: self._relay.finished.emit(serial, f))

    def _on_finished(self, serial: int, future: Future[Outcome]) -> None:
        self._inflight.discard(future)
        conn = self._connections.get(serial)
        if conn is not None:
            conn.inflight -= 1
        try:
            outcome = future.result()
        except Exception:
            # The dispatcher answers every exception itself; this is the last net (a
            # cancelled future at shutdown, a bug) so that no request goes unanswered.
            log.exception("a request of client connection %d ended without a reply", serial)
            if conn is not None and not conn.closing:
                self._send(conn, error_message(None, InternalError("internal error")))
            return
        if conn is not None and not conn.closing:
            self._send(conn, outcome.reply)
        if outcome.changes is not None and "result" in outcome.reply:
            changed = ChangedParams(
                method=outcome.method,
                library_ids=outcome.changes.library_ids,
                libraries=outcome.changes.libraries,
                settings=outcome.changes.settings,
                sources=outcome.changes.sources,
                documents=outcome.changes.documents,
                external_calls=outcome.changes.external_calls,
            )
            self.broadcast(NOTIFY_CHANGED.name, changed.to_wire())

    def broadcast(self, method: str, params: dict[str, Any]) -> None:
        message = notification_message(method, params)
        for conn in list(self._connections.values()):  # a slow reader may be dropped meanwhile
            # External-tool clients ask; they are not told (nothing they may see is pushed).
            if conn.authenticated and not conn.closing and conn.client != EXTERNAL_CLIENT:
                self._send(conn, message)
