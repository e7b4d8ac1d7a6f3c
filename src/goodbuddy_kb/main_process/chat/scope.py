"""Request scope (US-A3): a capability token bound to one request and its selected libraries.

The `knowledge_search` tool accepts only the live token of the request running it; its
arguments may narrow the libraries but never widen them; a token dies with its request.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass

from goodbuddy_kb.contracts.errors import UnauthorizedError


@dataclass(frozen=True)
class Scope:
    token: str
    request_key: str
    library_ids: frozenset[str]


class ScopeRegistry:
    def __init__(self) -> None:
        self._live: dict[str, Scope] = {}
        self._lock = threading.Lock()

    def mint(self, request_key: str, library_ids: list[str]) -> Scope:
        scope = Scope(secrets.token_urlsafe(24), request_key, frozenset(library_ids))
        with self._lock:
            self._live[scope.token] = scope
        return scope

    def revoke(self, scope: Scope) -> None:
        with self._lock:
            self._live.pop(scope.token, None)

    def authorise(self, token: object, request_key: str, wanted: object) -> list[str]:
        """The libraries a tool call may search, or UnauthorizedError saying why not."""
        with self._lock:
            scope = self._live.get(token) if isinstance(token, str) else None
        if scope is None:
            raise UnauthorizedError(
                "knowledge_search refused: the scope token is unknown or has expired"
            )
        if scope.request_key != request_key:
            raise UnauthorizedError(
                "knowledge_search refused: the token belongs to another request"
            )
        if wanted is None:
            return sorted(scope.library_ids)
        if not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted):
            raise UnauthorizedError("knowledge_search refused: libraryIds must be a list of ids")
        extra = set(wanted) - scope.library_ids
        if extra:
            raise UnauthorizedError(
                "knowledge_search refused: the request may not widen its library scope"
            )
        return sorted(set(wanted))
