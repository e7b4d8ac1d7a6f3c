"""The GUI's hold on the backend: start or attach off the GUI thread, typed async calls,
and a visible "backend stopped" state with a restart action instead of a hang."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, TypeVar

from goodbuddy_kb.bridge.client import AsyncClient, Callback
from goodbuddy_kb.bridge.launcher import BackendProcess, BackendStartError
from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.errors import KbError, UnavailableError
from goodbuddy_kb.contracts.methods import NOTIFY_CHANGED, NOTIFY_CHAT, NOTIFY_TASK, MethodSpec
from goodbuddy_kb.datadir import Endpoint
from goodbuddy_kb.qt.widgets import QtCore

Req = TypeVar("Req", bound=ContractModel)
Resp = TypeVar("Resp", bound=ContractModel)


class BackendLink(QtCore.QObject):
    connected = QtCore.Signal(int)  # backend pid
    stopped = QtCore.Signal(str)  # redacted reason
    #: The backend refuses this data directory for good (a newer build wrote it): why.
    refused = QtCore.Signal(str)
    changed = QtCore.Signal(dict)  # notify:changed params
    task = QtCore.Signal(dict)  # notify:task params
    chat = QtCore.Signal(dict)  # notify:chat params (streamed reply pieces)
    _started = QtCore.Signal(object)  # BackendProcess | Endpoint | KbError, from the start thread

    def __init__(self, data_dir: Path, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._data_dir = data_dir
        self._process: BackendProcess | None = None
        self._client: AsyncClient | None = None
        self._starting = False
        #: Answers to calls made in an earlier generation are dropped (see drop_answers).
        self._generation = 0
        self._started.connect(self._on_started)

    @property
    def alive(self) -> bool:
        return self._client is not None and self._client.alive

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    @property
    def process(self) -> BackendProcess | None:
        return self._process

    def start(self) -> None:
        """Attach to a serving backend or launch one, without blocking the GUI thread."""
        if self._starting or self.alive:
            return
        self._starting = True

        def work() -> None:
            result: object
            try:
                endpoint = Endpoint.read(self._data_dir)
                result = (
                    endpoint
                    if endpoint is not None and _reachable(endpoint)
                    else BackendProcess.start(self._data_dir, catch_up=True)
                )
            except KbError as exc:
                result = exc
            except OSError as exc:
                result = UnavailableError(f"cannot start the backend: {exc.strerror or exc}")
            self._started.emit(result)

        threading.Thread(target=work, name="kb-launch", daemon=True).start()

    def _on_started(self, result: object) -> None:
        self._starting = False
        if isinstance(result, KbError):
            self.stopped.emit(result.message)
            if isinstance(result, BackendStartError) and result.reason == "newer_data":
                self.refused.emit(result.message)
            return
        if isinstance(result, BackendProcess):
            self._process = result
            endpoint = result.endpoint
        else:
            assert isinstance(result, Endpoint)
            endpoint = result
        client = AsyncClient(endpoint.server_name, endpoint.secret, self)
        try:
            client.open()
        except KbError as exc:
            self.stopped.emit(exc.message)
            return
        client.disconnected.connect(self._on_disconnected)
        client.notified.connect(self._on_notified)
        self._client = client
        self.connected.emit(endpoint.pid)

    def call(self, spec: MethodSpec[Req, Resp], request: Req, callback: Callback[Resp]) -> None:
        if self._client is None:
            callback(None, UnavailableError("the backend is not running"))
            return
        generation = self._generation

        def answer(result: Resp | None, error: KbError | None) -> None:
            if generation == self._generation:
                callback(result, error)

        self._client.call(spec, request, answer)

    def drop_answers(self) -> None:
        """Answers to the calls made so far are dropped when they arrive: the widgets that
        asked are being replaced (a language change rebuilds the window's widgets)."""
        self._generation += 1

    def restart(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client.deleteLater()
            self._client = None
        if self._process is not None and not self._process.alive():
            self._process = None
        self.start()

    def shutdown(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._process is not None:
            self._process.stop()
            self._process = None

    def _on_disconnected(self, reason: str) -> None:
        self.stopped.emit(reason)

    def _on_notified(self, method: str, params: dict[str, Any]) -> None:
        if method == NOTIFY_CHANGED.name:
            self.changed.emit(params)
        elif method == NOTIFY_TASK.name:
            self.task.emit(params)
        elif method == NOTIFY_CHAT.name:
            self.chat.emit(params)


def _reachable(endpoint: Endpoint) -> bool:
    from goodbuddy_kb.bridge.client import BlockingClient

    try:
        BlockingClient(endpoint.server_name, endpoint.secret, "gui-probe").open().close()
    except KbError:
        return False
    return True
