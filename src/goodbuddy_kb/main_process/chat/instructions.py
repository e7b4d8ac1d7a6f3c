"""Per-library assistant instructions in the chat's system message.

A person gives a library instructions ("answer in Chinese, as the HR helpdesk"); when a chat's
scope includes it, the system message carries them after the fixed rules, each under its
library's name, the whole block bounded. They are the person's own words, so they belong in the
system message — and never in the untrusted evidence block, which holds document text only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.main_process.storage import libraries

#: Longest instructions block in the system message, in characters.
MAX_INSTRUCTIONS_BLOCK = 4_000
_HEADER = (
    "The person gave these instructions for the knowledge libraries in this chat's scope. "
    "Follow them unless they conflict with the rules above."
)


def instructions_block(conn: sqlite3.Connection, library_ids: Iterable[str]) -> str | None:
    """The instructions of the libraries in scope (in name order), or None when none has any."""
    found: list[tuple[str, str]] = []
    for library_id in library_ids:
        try:
            library = libraries.get(conn, library_id)
            text = libraries.get_settings(conn, library_id).assistant_instructions.strip()
        except NotFoundError:
            continue
        if text:
            found.append((library.name, text))
    if not found:
        return None
    if len(found) == 1:
        block = f"{_HEADER}\n\n{found[0][1]}"
    else:
        block = _HEADER + "".join(
            f"\n\n## {name}\n{text}" for name, text in sorted(found, key=lambda x: x[0])
        )
    if len(block) > MAX_INSTRUCTIONS_BLOCK:
        block = block[: MAX_INSTRUCTIONS_BLOCK - 1] + "…"
    return block
