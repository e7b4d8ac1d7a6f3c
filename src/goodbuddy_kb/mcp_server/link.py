"""The MCP server's hold on the backend: its calls, made from the event loop.

The first call attaches to the backend serving the data directory or starts one (the launcher's
session, which also decides whether a started backend stops with this server). Calls then go over
a ``StreamClient`` read by the event loop itself — no thread hop, no polling — where the backend's
socket is a filesystem path; elsewhere over the session's blocking client, inline on the loop's
thread (a Qt socket belongs to the thread that made it).

A lost connection (the window that had started the backend closed) is worth one more try on a
fresh attach, or a backend of the server's own — but only for reads, and only while the server is
serving. The call record is the one write: once its request may have reached the backend it is
never sent again, so a record is stored at most once. And when the server closes its own
connection at shutdown (``close_stream``), a call cut short by that is not a lost backend: from
then on nothing is retried and no backend is started.

The server never makes a data directory: a backend is started only where GoodBuddy KB data
already is (a mistyped ``--data-dir`` gets ``NoDataError`` instead of a new, empty directory).

A search whose caller is cancelled (the MCP client sent `notifications/cancelled`) is stopped in
the backend too (`external:cancel`); its late reply is dropped. Over the blocking client the
loop cannot see the cancel until the reply is in, so there the result is only dropped.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from goodbuddy_kb.bridge.launcher import Session, open_session
from goodbuddy_kb.bridge.streams import StreamClient
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import KbError, UnavailableError
from goodbuddy_kb.contracts.external import (
    ExternalCancelRequest,
    ExternalSearchRequest,
    ExternalSearchResponse,
)
from goodbuddy_kb.contracts.methods import EXTERNAL_CANCEL, EXTERNAL_SEARCH, MethodSpec
from goodbuddy_kb.contracts.wire import EXTERNAL_CLIENT
from goodbuddy_kb.mcp_server.datadir_check import NoDataError, check_data_dir

log = logging.getLogger(__name__)
Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)
#: How long a forwarded cancel may take before it is given up (the search's reply is dropped
#: either way).
CANCEL_TIMEOUT_S = 5.0

__all__ = ["BackendLink", "DeliveryUnknown", "NoDataError"]


class DeliveryUnknown(UnavailableError):
    """A write's connection was lost after its request went out: the backend may have stored
    it, so it is not sent again."""


@dataclass
class _Attempt:
    sent: bool = False


class BackendLink:
    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self._session: Session | None = None
        self._stream: StreamClient | None = None
        #: Set by ``close_stream``: the server is shutting down and its connection is its own
        #: doing, never a lost backend.
        self._closing = False
        #: The last forwarded cancel: whether the backend still had the search to stop.
        self.last_cancel: asyncio.Task[bool] | None = None

    @property
    def started_backend(self) -> bool:
        """Whether this server started the backend it uses (it stops with the server)."""
        return self._session is not None and self._session.process is not None

    @property
    def closing(self) -> bool:
        return self._closing

    def problem(self) -> NoDataError | None:
        """Why no backend can serve this server's data directory right now, or None."""
        return None if self._session is not None else check_data_dir(self._data_dir)

    async def call(
        self, spec: MethodSpec[Req, Resp], request: Req, timeout: float | None = None
    ) -> Resp:
        attempt = _Attempt()
        try:
            return await self._call_once(spec, request, attempt, timeout)
        except UnavailableError as exc:
            if self._closing or self._answered_itself():
                raise  # our own shutdown, or the backend said "unavailable" itself
            if spec.mutates and attempt.sent:
                raise DeliveryUnknown(exc.message) from None
            self._drop()
            return await self._call_once(spec, request, _Attempt(), timeout)

    async def search(self, request: ExternalSearchRequest) -> ExternalSearchResponse:
        """`external:search`; cancelling the caller stops the search in the backend too."""
        request_id = uuid.uuid4().hex
        try:
            return await self.call(
                EXTERNAL_SEARCH, request.model_copy(update={"request_id": request_id})
            )
        except asyncio.CancelledError:
            stream = self._stream
            if stream is not None and stream.connected:
                # A task of its own: the caller's scope is cancelled and must not wait for this.
                self.last_cancel = asyncio.get_running_loop().create_task(
                    _forward_cancel(stream, request_id)
                )
            raise

    def begin_shutdown(self) -> None:
        """From now on a lost connection is not retried and no backend is started; calls
        still go over the connection there is (the last call records)."""
        self._closing = True

    def close_stream(self) -> None:
        """Shutting down: close the event loop's connection (from the loop, before it ends).
        Calls still running fail without a retry, and no backend is started any more."""
        self._closing = True
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def close(self) -> None:
        """Disconnect; a backend this server started stops (or stays for a GUI using it)."""
        self._closing = True
        self._drop()

    async def _call_once(
        self,
        spec: MethodSpec[Req, Resp],
        request: Req,
        attempt: _Attempt,
        timeout: float | None,
    ) -> Resp:
        if self._stream is not None and self._stream.connected:
            attempt.sent = True
            return await self._stream.call(spec, request, timeout)
        session = self._connected_session()
        if self._stream is None and StreamClient.supported(session.endpoint.server_name):
            endpoint = session.endpoint
            stream = StreamClient(endpoint.server_name, endpoint.secret, EXTERNAL_CLIENT)
            self._stream = await stream.open()
        attempt.sent = True
        if self._stream is not None:
            return await self._stream.call(spec, request, timeout)
        return session.client.call(spec, request, timeout)

    def _answered_itself(self) -> bool:
        """After an "unavailable": whether the backend said so over a live connection (else
        the connection was lost, or could not be made, and a fresh attach is worth a try)."""
        if self._stream is not None:
            return self._stream.connected
        session = self._session
        if session is None or StreamClient.supported(session.endpoint.server_name):
            return False
        return session.client.connected

    def _connected_session(self) -> Session:
        if self._session is not None and self._session.client.connected:
            return self._session
        if self._closing:
            raise UnavailableError("the MCP server is shutting down")
        self._drop()
        problem = check_data_dir(self._data_dir)
        if problem is not None:
            raise problem
        try:
            self._session = open_session(self._data_dir, client_name=EXTERNAL_CLIENT, catch_up=True)
        except OSError as exc:
            raise UnavailableError(f"cannot start the backend: {exc.strerror or exc}") from exc
        return self._session

    def _drop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()
        session, self._session = self._session, None
        if session is not None:
            session.close()


async def _forward_cancel(stream: StreamClient, request_id: str) -> bool:
    try:
        answer = await stream.call(
            EXTERNAL_CANCEL, ExternalCancelRequest(request_id=request_id), CANCEL_TIMEOUT_S
        )
    except KbError as exc:
        log.warning("could not forward a cancelled search to the backend: %s", exc.message)
        return False
    return answer.cancelled
