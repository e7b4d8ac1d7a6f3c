"""Cancellation tokens checked between units of work (documents, vector pages)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from goodbuddy_kb.contracts.errors import CancelledError

#: The reason of a cancel a person asked for (a task's and its documents' stored error).
CANCELLED_BY_USER = "cancelled by the user"


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = CANCELLED_BY_USER
        self._callbacks: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def cancel(self, reason: str = CANCELLED_BY_USER) -> None:
        self.reason = reason
        self._event.set()
        with self._lock:
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when cancelled (at once if already): aborts blocking I/O."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)
                return
        callback()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise CancelledError(self.reason)
