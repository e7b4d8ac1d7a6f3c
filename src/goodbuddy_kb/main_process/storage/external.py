"""What external AI tools may see, read fresh on every call, and the bounded record of their calls.

A library is visible to an external tool only while its ``external_access`` flag is on; a scope
(the MCP server's ``--library`` flags) narrows that set and never widens it. Refusals name the
reference the caller gave and say the same thing for "not exposed" and "does not exist".
"""

from __future__ import annotations

import sqlite3
import statistics
from collections.abc import Sequence

from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.external import (
    EXTERNAL_TOOLS,
    ExternalCall,
    ExternalCallsSummaryResponse,
    ExternalLibraryRef,
    ExternalToolStats,
    match_library,
)
from goodbuddy_kb.contracts.limits import MAX_EXTERNAL_CALL_RECORDS, MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage.db import transaction

NONE_EXPOSED = (
    "no library is available to external AI tools: in GoodBuddy KB, open Settings → "
    "External AI tools (MCP) and switch on the libraries an external tool may search"
)


def not_available(ref: str) -> NotFoundError:
    return NotFoundError(
        f"no library “{ref}” is available to external AI tools", {"library": ref[:100]}
    )


def exposed(conn: sqlite3.Connection) -> list[ExternalLibraryRef]:
    rows = conn.execute(
        "SELECT id, name FROM libraries WHERE external_access = 1 ORDER BY name COLLATE NOCASE, id"
    ).fetchall()
    return [ExternalLibraryRef(id=row["id"], name=row["name"]) for row in rows]


def visible(conn: sqlite3.Connection, scope: Sequence[str] | None) -> list[ExternalLibraryRef]:
    """The exposed libraries inside ``scope`` (all exposed ones when there is no scope)."""
    libraries = exposed(conn)
    if scope is None:
        return libraries
    chosen = {m.id for m in (match_library(libraries, ref) for ref in scope) if m is not None}
    return [lib for lib in libraries if lib.id in chosen]


def resolve(
    conn: sqlite3.Connection, refs: Sequence[str] | None, scope: Sequence[str] | None
) -> list[ExternalLibraryRef]:
    """The libraries one external search may use; refuses any reference outside what is
    visible right now."""
    allowed = visible(conn, scope)
    if refs is None:
        if not allowed:
            raise NotFoundError(NONE_EXPOSED)
        if len(allowed) > MAX_LIBRARIES_PER_REQUEST:
            raise InvalidRequestError(
                f"{len(allowed)} libraries are available; name at most "
                f"{MAX_LIBRARIES_PER_REQUEST} of them in “libraries”",
                {"fields": [{"field": "libraries", "problem": "too many libraries in scope"}]},
            )
        return allowed
    chosen: dict[str, ExternalLibraryRef] = {}
    for ref in refs:
        match = match_library(allowed, ref)
        if match is None:
            raise not_available(ref)
        chosen[match.id] = match
    return list(chosen.values())


def is_visible(conn: sqlite3.Connection, library_id: str, scope: Sequence[str] | None) -> bool:
    return any(lib.id == library_id for lib in visible(conn, scope))


# -- the call record ----------------------------------------------------------------------------
def record(conn: sqlite3.Connection, calls: Sequence[ExternalCall]) -> int:
    stamp = now_iso()
    with transaction(conn):
        conn.executemany(
            "INSERT INTO external_calls (at, tool, ok, error_code, ms) VALUES (?, ?, ?, ?, ?)",
            [(stamp, c.tool, int(c.ok), c.error_code, round(c.ms, 3)) for c in calls],
        )
        conn.execute(
            "DELETE FROM external_calls WHERE seq <= (SELECT max(seq) FROM external_calls) - ?",
            (MAX_EXTERNAL_CALL_RECORDS,),
        )
    return len(calls)


def summary(conn: sqlite3.Connection) -> ExternalCallsSummaryResponse:
    rows = conn.execute("SELECT at, tool, ok, ms FROM external_calls ORDER BY seq").fetchall()
    tools = []
    for tool in EXTERNAL_TOOLS:
        mine = [row for row in rows if row["tool"] == tool]
        tools.append(
            ExternalToolStats(
                tool=tool,
                calls=len(mine),
                errors=sum(1 for row in mine if not row["ok"]),
                p50_ms=round(statistics.median(row["ms"] for row in mine), 1) if mine else None,
                last_at=mine[-1]["at"] if mine else None,
            )
        )
    (count,) = conn.execute("SELECT count(*) FROM libraries WHERE external_access = 1").fetchone()
    return ExternalCallsSummaryResponse(
        tools=tools,
        total_calls=len(rows),
        total_errors=sum(1 for row in rows if not row["ok"]),
        since=rows[0]["at"] if rows else None,
        exposed_libraries=count,
    )
