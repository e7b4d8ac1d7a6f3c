"""The server's ``--library`` scope, said back to the user when part of it names nothing.

The backend narrows every call to the scope and answers a library that does not exist and one
that is not switched on alike (so a client cannot probe names); a scope entry that matches no
available library — a typo, or a partial name — would then just make libraries vanish, and the
only hint would be "switch libraries on in Settings". These warnings name the entries that match
nothing, by the same rule the backend matches them with.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from goodbuddy_kb.contracts.external import ExternalLibrary, match_library

log = logging.getLogger(__name__)


def unmatched(scope: Sequence[str] | None, libraries: Sequence[ExternalLibrary]) -> list[str]:
    """The scope entries that name none of ``libraries`` (what the scoped listing returned)."""
    return [ref for ref in scope or () if match_library(libraries, ref) is None]


def scope_warning(refs: Sequence[str]) -> str | None:
    if not refs:
        return None
    names = ", ".join(f"“{ref.strip()}”" for ref in refs)
    option = "option" if len(refs) == 1 else "options"
    return (
        f"this MCP server's --library {option} {names} matches no library available to "
        "external AI tools: name a library by its full name (any case) or its id, and check "
        "that it is switched on in GoodBuddy KB → Settings → External AI tools (MCP)"
    )


class ScopeWarnings:
    """Writes each distinct scope warning to standard error once (the MCP client's log)."""

    def __init__(self) -> None:
        self._said: set[str] = set()

    def note(self, warning: str | None) -> None:
        if warning is not None and warning not in self._said:
            self._said.add(warning)
            log.warning("%s", warning)
