"""Cancellation tokens checked between units of work (documents, vector pages)."""

from __future__ import annotations

import threading

from goodbuddy_kb.contracts.errors import CancelledError


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self.reason = "cancelled by the user"

    def cancel(self, reason: str = "cancelled by the user") -> None:
        self.reason = reason
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise CancelledError(self.reason)
