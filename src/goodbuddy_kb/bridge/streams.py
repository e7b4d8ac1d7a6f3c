"""``StreamClient``: the bridge client for an asyncio event loop (the MCP server).

The same wire and rules as the Qt clients — length-prefixed frames, the authentication handshake
first, every reply validated against the method table — on the socket the backend's
QLocalServer listens on, read by the event loop itself: no Qt event loop, no polling, no thread.
Calls may overlap (each waits for its own reply), so cancelling a caller is ordinary asyncio
cancellation, and a reply nobody waits for any more is dropped when it arrives.

Only where that socket is a filesystem path (Linux, macOS); ``supported`` says so, and elsewhere
a caller uses ``BlockingClient``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import sys
from typing import Any, TypeVar

from goodbuddy_kb.bridge.protocol import error_of, params_of, result_of
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import KbError, TimeoutError_, UnavailableError
from goodbuddy_kb.contracts.methods import MethodSpec
from goodbuddy_kb.contracts.wire import (
    AUTHENTICATE,
    AuthenticateParams,
    FrameDecoder,
    encode_frame,
    request_message,
)

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)

CONNECT_TIMEOUT_S = 2.0
DEFAULT_CALL_TIMEOUT_S = 60.0
READ_CHUNK = 256 * 1024


class StreamClient:
    def __init__(self, server_name: str, secret: str, client_name: str = "client") -> None:
        self._server_name = server_name
        self._secret = secret
        self._client_name = client_name
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._reading: asyncio.Task[None] | None = None
        self._lost: KbError | None = None

    @staticmethod
    def supported(server_name: str) -> bool:
        """Whether the backend's socket is a filesystem path this client can open."""
        return sys.platform != "win32" and os.path.isabs(server_name)

    async def open(self) -> StreamClient:
        try:
            reader, self._writer = await asyncio.wait_for(
                asyncio.open_unix_connection(self._server_name), CONNECT_TIMEOUT_S
            )
        except (TimeoutError, OSError) as exc:
            raise UnavailableError(f"cannot reach the backend: {exc}") from None
        self._reading = asyncio.get_running_loop().create_task(self._read(reader))
        auth = AuthenticateParams(secret=self._secret, client=self._client_name).to_wire()
        reply = await self._roundtrip(AUTHENTICATE, auth, DEFAULT_CALL_TIMEOUT_S)
        if "error" in reply:
            self.close()
            raise error_of(reply)
        return self

    @property
    def connected(self) -> bool:
        return self._writer is not None and self._lost is None

    async def call(
        self, spec: MethodSpec[Req, Resp], request: Req, timeout: float | None = None
    ) -> Resp:
        reply = await self._roundtrip(
            spec.name, params_of(spec, request), timeout or DEFAULT_CALL_TIMEOUT_S
        )
        return result_of(spec, reply)

    async def _roundtrip(
        self, method: str, params: dict[str, Any], timeout: float
    ) -> dict[str, Any]:
        if self._writer is None or self._lost is not None:
            raise self._lost or UnavailableError("not connected to the backend")
        msg_id = next(self._ids)
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = waiter
        try:
            self._writer.write(encode_frame(request_message(msg_id, method, params)))
            await self._writer.drain()
            return await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            raise TimeoutError_("the backend did not answer in time") from None
        except ConnectionError as exc:
            raise self._connection_lost(f"the backend closed the connection ({exc})") from None
        finally:
            self._pending.pop(msg_id, None)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        decoder = FrameDecoder()
        reason = "the backend closed the connection"
        try:
            while data := await reader.read(READ_CHUNK):
                for message in decoder.feed(data):
                    self._deliver(message)
        except KbError as exc:  # a frame the wire rules refuse: the connection is unusable
            reason = f"the backend sent a bad frame: {exc.message}"
        except OSError as exc:
            reason = f"the backend connection failed: {exc}"
        self._connection_lost(reason)

    def _deliver(self, message: dict[str, Any]) -> None:
        msg_id = message.get("id")
        if "method" in message and "id" not in message:
            return  # a notification: nothing here listens for them
        if msg_id is None:
            # An answer to no request in particular (the backend refusing the connection or
            # its last-resort error): every caller waiting gets it.
            for each in self._pending.values():
                if not each.done():
                    each.set_result(message)
            return
        waiter = self._pending.get(msg_id) if isinstance(msg_id, int) else None
        if waiter is not None and not waiter.done():
            waiter.set_result(message)
        # else: its caller stopped waiting (cancelled, timed out); the reply is dropped.

    def _connection_lost(self, reason: str) -> KbError:
        if self._lost is None:
            self._lost = UnavailableError(reason)
        for waiter in self._pending.values():
            if not waiter.done():
                waiter.set_exception(self._lost)
        return self._lost

    def close(self) -> None:
        if self._lost is None:
            self._lost = UnavailableError("the connection was closed")
        if self._reading is not None and not self._reading.get_loop().is_closed():
            self._reading.cancel()
            if self._writer is not None:
                with contextlib.suppress(OSError, RuntimeError):
                    self._writer.close()
        for waiter in self._pending.values():
            if not waiter.done():
                waiter.set_exception(self._lost)
