"""The MCP server's hold on the backend: one bridge connection, used from the event loop's thread.

Calls run inline on the loop's thread: a Qt socket belongs to the thread that made it, and one
hop fewer per call keeps the MCP layer's overhead small (calls share one socket, so they are
sequential anyway). The first call attaches to the backend serving the data directory or starts
one. If the backend went away (the window that had started it closed), the next call attaches or
starts again and is tried once more — every external method is a read or the call record, so a
retry cannot do harm twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from goodbuddy_kb.bridge.launcher import Session, open_session
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.contracts.methods import MethodSpec
from goodbuddy_kb.contracts.wire import EXTERNAL_CLIENT

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)


class BackendLink:
    def __init__(self, data_dir: Path) -> None:
        self._data_dir = data_dir
        self._session: Session | None = None

    @property
    def started_backend(self) -> bool:
        """Whether this server started the backend it uses (it stops with the server)."""
        return self._session is not None and self._session.process is not None

    async def call(self, spec: MethodSpec[Req, Resp], request: Req) -> Resp:
        return self.call_sync(spec, request)

    def call_sync(self, spec: MethodSpec[Req, Resp], request: Req) -> Resp:
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
        self._drop()

    def _connected(self) -> Session:
        if self._session is None or not self._session.client.connected:
            self._drop()
            try:
                self._session = open_session(self._data_dir, client_name=EXTERNAL_CLIENT)
            except OSError as exc:
                raise UnavailableError(f"cannot start the backend: {exc.strerror or exc}") from exc
        return self._session

    def _drop(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            session.close()
