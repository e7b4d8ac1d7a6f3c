"""Latest request wins: a screen that asks the backend again before the previous answer arrived
(a new page, another entity, a search typed further) must drop the older answers. A ``Ticket``
is the counter compared in the reply callback, written once."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

P = ParamSpec("P")


class Ticket:
    """Hands out numbered tickets; only the latest one is still wanted."""

    def __init__(self) -> None:
        self._latest = 0

    def take(self) -> int:
        """A new ticket: every answer to an earlier one becomes stale."""
        self._latest += 1
        return self._latest

    def is_latest(self, ticket: int) -> bool:
        return ticket == self._latest

    def drop(self) -> None:
        """Make every answer still on its way stale (the screen now shows something else)."""
        self._latest += 1

    def latest(self, callback: Callable[P, None]) -> Callable[P, None]:
        """Take a ticket and return ``callback`` wrapped so it runs only while no later ticket
        has been taken (a reply to an older request is dropped)."""
        ticket = self.take()

        def answer(*args: P.args, **kwargs: P.kwargs) -> None:
            if self.is_latest(ticket):
                callback(*args, **kwargs)

        return answer
