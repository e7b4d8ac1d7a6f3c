"""The MCP server's hold on the backend: one bridge thread owns the connection.

Qt sockets belong to the thread that made them, so every call runs on one worker thread and the
MCP event loop awaits it without blocking. If the backend went away (the window that had started
it closed), the next call attaches to a serving backend or starts one, and is tried once more —
every external method is a read or the idempotent call record, so a retry cannot do harm twice.
"""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from goodbuddy_kb.bridge.launcher import Session, open_session
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import KbError, UnavailableError
from goodbuddy_kb.contracts.methods import MethodSpec
from goodbuddy_kb.contracts.wire import EXTERNAL_CLIENT

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)


class BackendLink:
    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kb-mcp-bridge")
        self._session: Session | None = None

    @property
    def started_backend(self) -> bool:
        """Whether this server started the backend it uses (it stops with the server)."""
        return self._session is not None and self._session.process is not None

    def connect_soon(self) -> None:
        """Attach or start in the background, so the first tool call does not wait for it."""
        self._pool.submit(self._quietly_connect)

    async def call(self, spec: MethodSpec[Req, Resp], request: Req) -> Resp:
        return await asyncio.wrap_future(self._pool.submit(self.call_sync, spec, request))

    def call_blocking(self, spec: MethodSpec[Req, Resp], request: Req, timeout: float = 15) -> Resp:
        """From any thread but the bridge thread; waits for the answer."""
        return self._pool.submit(self.call_sync, spec, request).result(timeout)

    def call_sync(self, spec: MethodSpec[Req, Resp], request: Req) -> Resp:
        """On the bridge thread only."""
        session = self._connected()
        try:
            return session.client.call(spec, request)
        except UnavailableError:
            if session.client.connected:
                raise  # the backend answered "unavailable" itself; not a lost connection
            self._drop()
            return self._connected().client.call(spec, request)

    def close(self) -> None:
        """Disconnect; a backend this server started stops (or stays for a GUI using it)."""

        def finish() -> None:
            self._drop()

        with contextlib.suppress(RuntimeError):
            self._pool.submit(finish).result(timeout=15)
        self._pool.shutdown(wait=True)

    def _connected(self) -> Session:
        if self._session is None or not self._session.client.connected:
            self._drop()
            try:
                self._session = open_session(self._data_dir, client_name=EXTERNAL_CLIENT)
            except OSError as exc:
                raise UnavailableError(f"cannot start the backend: {exc.strerror or exc}") from exc
        return self._session

    def _quietly_connect(self) -> None:
        with contextlib.suppress(KbError, OSError):
            self._connected()

    def _drop(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.close()
