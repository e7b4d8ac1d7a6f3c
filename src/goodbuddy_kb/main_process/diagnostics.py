"""The local diagnostics record (PRD §13) and the bundle a user exports when asking for help.

One row per search, sync, vectorisation or rebuild: what ran, how it ended, how long it took,
and counts — for a search (from the workbench or CLI, a chat before or through its model, or an
external AI tool over MCP) where it came from, the retrieval mode, how many libraries, channels
with their candidates and times, degradation, result count and context characters; task totals
and failures. Never query text, document text or keys: library ids at most. The table is a ring
of the newest ``MAX_EVENTS`` rows.

The export bundle adds versions, settings (keys never; URL user-info removed; the assistant's
instructions by their length), counts, recent
task failures with their reasons, document failure reasons with their counts and the tail of
``backend.log``; every string in it passes ``redact``, has every known file name and source
location replaced (``diagnostic_names``) and the home and data directories too, so it can be
attached to a request for help as it is.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from goodbuddy_kb import __version__
from goodbuddy_kb.contracts import diagnostics as c
from goodbuddy_kb.contracts.errors import KbError, redact
from goodbuddy_kb.contracts.retrieval import (
    GRAPH_NOTES,
    KnowledgeRetrievalResponse,
    RetrieveRequest,
)
from goodbuddy_kb.datadir import LOG_FILE
from goodbuddy_kb.main_process import exportfile
from goodbuddy_kb.main_process.diagnostic_log import MAX_EVENTS, DiagnosticsLog
from goodbuddy_kb.main_process.diagnostic_names import NameRedactor
from goodbuddy_kb.main_process.embeddings.local import encoder_summary
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage import app_settings, libraries
from goodbuddy_kb.main_process.storage import external as external_calls
from goodbuddy_kb.main_process.storage.setting_keys import WINDOW_SETTING

log = logging.getLogger(__name__)

#: Rows and log lines an export carries.
EXPORT_EVENTS = 2_000
EXPORT_LOG_LINES = 300
EXPORT_TASK_FAILURES = 100
_REASON_CHARACTERS = 200


def _reason(text: str | None) -> str | None:
    return redact(text, _REASON_CHARACTERS) if text else None


def searched(
    events: DiagnosticsLog,
    request: RetrieveRequest,
    run: Callable[[], KnowledgeRetrievalResponse],
    origin: c.SearchOrigin,
    mode: c.SearchMode,
) -> KnowledgeRetrievalResponse:
    """Run one search and record it, whether it answers or fails (never its query)."""
    started = time.perf_counter()
    try:
        response = run()
    except KbError as exc:
        elapsed, code = (time.perf_counter() - started) * 1000, exc.code.value
        record_retrieval_error(events, request, code, elapsed, origin=origin, mode=mode)
        raise
    record_retrieval(events, request, response, origin=origin, mode=mode)
    return response


def record_retrieval(
    events: DiagnosticsLog,
    request: RetrieveRequest,
    response: KnowledgeRetrievalResponse,
    *,
    origin: c.SearchOrigin,
    mode: c.SearchMode,
) -> None:
    d = response.diagnostics
    asked = [x for x in d.degraded_channels if x.channel in d.requested_channels]
    # A question that names no entity of the graph is a note about the question, not a fault.
    notes = [x for x in asked if x.reason_code in GRAPH_NOTES]
    degraded = [x for x in asked if x not in notes]
    fell_back = d.rerank.applied != d.rerank.requested
    details = {
        "origin": origin,
        "mode": mode,
        "libraries": len(request.library_ids),
        "channels": {"requested": list(d.requested_channels), "used": list(d.used_channels)},
        "candidates": dict(d.candidate_counts),
        "timingsMs": {k: round(v, 1) for k, v in d.timings_ms.items()},
        "degraded": [{"channel": x.channel, "reason": _reason(x.reason)} for x in degraded],
        "notes": [{"channel": x.channel, "reason": _reason(x.reason)} for x in notes],
        "rerank": {
            "requested": d.rerank.requested,
            "applied": d.rerank.applied,
            "fallback": _reason(d.rerank.fallback_reason),
        },
        "fused": d.fused_candidates,
        "results": len(response.results),
        "contextCharacters": response.context.character_count,
        "zeroResult": response.zero_result.reason if response.zero_result else None,
    }
    outcome = "degraded" if degraded or fell_back else "ok"
    events.add("retrieve", outcome, response.duration_ms, details)


def record_retrieval_error(
    events: DiagnosticsLog,
    request: RetrieveRequest,
    code: str,
    duration_ms: float,
    *,
    origin: c.SearchOrigin,
    mode: c.SearchMode,
) -> None:
    outcome = "cancelled" if code == "cancelled" else "failed"
    details = {
        "origin": origin,
        "mode": mode,
        "libraries": len(request.library_ids),
        "error": code,
    }
    events.add("retrieve", outcome, duration_ms, details)


def record_task(
    events: DiagnosticsLog,
    kind: str,
    state: str,
    library_id: str | None,
    duration_ms: float,
    total: int,
    failed: int,
    error: str | None,
) -> None:
    outcome = {"completed": "failed" if error else "ok"}.get(state, state)
    if state == "completed" and failed:
        outcome = "degraded"
    details = {
        "library": library_id,
        "total": total,
        "failedDocuments": failed,
        "error": _reason(error),
    }
    events.add(kind, outcome, duration_ms, details)


def record_chat(
    events: DiagnosticsLog,
    state: str,
    duration_ms: float,
    mode: str,
    libraries: int,
    searches: int,
    error: str | None,
) -> None:
    """One chat answer: how it ended (a chat model that could not be reached left nothing in the
    record; a helper's try), its mode, how many libraries and searches, and why it failed
    (never the question or the answer)."""
    outcome = {"complete": "ok", "stopped": "cancelled"}.get(state, "failed")
    details = {"mode": mode, "libraries": libraries, "searches": searches, "error": _reason(error)}
    events.add("chat", outcome, duration_ms, details)


# -- reading --------------------------------------------------------------------------------
def _event(row: sqlite3.Row) -> c.DiagnosticEvent:
    return c.DiagnosticEvent(
        id=row["id"],
        at=row["at"],
        kind=row["kind"],
        outcome=row["outcome"],
        duration_ms=row["duration_ms"],
        details=json.loads(row["details"]),
    )


def summary(
    events: DiagnosticsLog, conn: sqlite3.Connection, recent: int = 50
) -> c.DiagnosticsSummary:
    """The record's totals and newest events, the ones still in memory included."""
    events.flush()
    return _summary(conn, recent)


def _summary(conn: sqlite3.Connection, recent: int) -> c.DiagnosticsSummary:
    totals = [
        c.DiagnosticTotals(
            kind=r["kind"],
            count=r["n"],
            ok=r["ok"],
            degraded=r["degraded"],
            failed=r["failed"],
            cancelled=r["cancelled"],
            average_ms=round(r["avg_ms"] or 0.0, 1),
        )
        for r in conn.execute(
            "SELECT kind, count(*) AS n, sum(outcome = 'ok') AS ok,"
            " sum(outcome = 'degraded') AS degraded,"
            " sum(outcome IN ('failed', 'interrupted')) AS failed,"
            " sum(outcome = 'cancelled') AS cancelled, avg(duration_ms) AS avg_ms"
            " FROM diagnostic_events GROUP BY kind ORDER BY kind"
        )
    ]
    (count, since) = conn.execute("SELECT count(*), min(at) FROM diagnostic_events").fetchone()
    rows = conn.execute("SELECT * FROM diagnostic_events ORDER BY id DESC LIMIT ?", (recent,))
    return c.DiagnosticsSummary(
        events=count,
        capacity=MAX_EVENTS,
        since=since,
        totals=totals,
        recent=[_event(r) for r in rows],
    )


# -- export ---------------------------------------------------------------------------------
def _scrubber(conn: sqlite3.Connection, data_dir: Path) -> Callable[[str], str]:
    home = str(Path.home())
    places = sorted({str(data_dir), str(data_dir.resolve())}, key=len, reverse=True)
    names = NameRedactor.of(conn)

    def scrub(text: str) -> str:
        text = names.redact(text)
        for place in places:
            text = text.replace(place, "<data-dir>")
        if len(home) > 1:
            text = text.replace(home, "~")
        return redact(text, 2_000)

    return scrub


def _scrub_all(value: Any, scrub: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrub_all(v, scrub) for v in value]
    if isinstance(value, dict):
        return {str(k): _scrub_all(v, scrub) for k, v in value.items()}
    return value


def _settings(conn: sqlite3.Connection) -> dict[str, Any]:
    """Model connections and library settings as stored: keys live elsewhere (never read here);
    fields that name a place keep only scheme, host and path."""
    out: dict[str, Any] = {}
    for key, value in app_settings.read_all(conn):
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = "(unreadable)"
    if isinstance(out.get(WINDOW_SETTING), dict):  # the chat's unsent question is a person's words
        out[WINDOW_SETTING].pop("draft", None)
    out["libraries"] = [
        {"id": library.id, "settings": _library_settings(conn, library.id)}
        for library in libraries.list_all(conn)
    ]
    return out


def _library_settings(conn: sqlite3.Connection, library_id: str) -> dict[str, Any]:
    """A library's settings; the assistant's instructions, a person's own words, by their
    length only."""
    wire = libraries.get_settings(conn, library_id).to_wire()
    words = wire.get("assistantInstructions")
    if isinstance(words, str) and words:
        wire["assistantInstructions"] = f"({len(words)} characters)"
    return wire


def _counts(conn: sqlite3.Connection) -> dict[str, Any]:
    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    return {
        "libraries": one("SELECT count(*) FROM libraries"),
        "sources": {
            r[0]: r[1] for r in conn.execute("SELECT kind, count(*) FROM sources GROUP BY kind")
        },
        "documents": one("SELECT count(*) FROM documents"),
        "documentsFailed": one(
            "SELECT count(*) FROM documents WHERE parse_status = 'failed'"
            " OR vector_status = 'failed'"
        ),
        "chunks": one("SELECT count(*) FROM chunks"),
        "vectorVersions": {
            r[0]: r[1]
            for r in conn.execute("SELECT state, count(*) FROM vector_versions GROUP BY state")
        },
    }


def _task_failures(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT id, library_id, kind, state, error, created_at, finished_at FROM tasks"
        " WHERE state IN ('failed', 'interrupted') OR error IS NOT NULL"
        " ORDER BY created_at DESC LIMIT ?",
        (EXPORT_TASK_FAILURES,),
    )
    return [
        {
            "id": r["id"],
            "library": r["library_id"],
            "kind": r["kind"],
            "state": r["state"],
            "reason": r["error"],
            "createdAt": r["created_at"],
            "finishedAt": r["finished_at"],
        }
        for r in rows
    ]


def _document_failures(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Why documents failed, grouped by reason (no paths, no titles)."""
    rows = conn.execute(
        "SELECT reason, count(*) AS n FROM (SELECT coalesce(parse_error, vector_error,"
        " retryable_error) AS reason FROM documents WHERE parse_status = 'failed'"
        " OR vector_status = 'failed' OR retryable_error IS NOT NULL)"
        " GROUP BY reason ORDER BY n DESC LIMIT 30"
    )
    return [{"reason": r["reason"], "documents": r["n"]} for r in rows]


def _log_tail(data_dir: Path) -> list[str]:
    path = data_dir / LOG_FILE
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 256 * 1024))
            lines = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    return lines[-EXPORT_LOG_LINES:]


def _versions(conn: sqlite3.Connection) -> dict[str, Any]:
    try:
        from goodbuddy_kb.qt import QtCore

        qt = QtCore.qVersion()
    except ImportError:
        qt = None
    schema = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
    return {
        "app": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "qt": qt,
        "sqlite": sqlite3.sqlite_version,
        "schema": schema,
        "localEncoder": encoder_summary(),
    }


def _external_calls(conn: sqlite3.Connection) -> dict[str, Any]:
    """Other AI tools' calls over MCP by tool: calls, errors and each error's kind (never the
    arguments). A call refused before it searched (no such library, a query over the limit) is
    no search event, so the events held only those that searched (a helper's try)."""
    calls = external_calls.summary(conn).to_wire()
    rows = conn.execute(
        "SELECT tool, error_code, count(*) FROM external_calls WHERE NOT ok"
        " GROUP BY tool, error_code ORDER BY tool, error_code"
    )
    calls["errorKinds"] = [{"tool": t, "kind": k or "unknown", "count": n} for t, k, n in rows]
    return calls


def bundle(conn: sqlite3.Connection, data_dir: Path) -> dict[str, Any]:
    """The bundle from what the table holds (``export`` writes the waiting events first)."""
    events = conn.execute(
        "SELECT * FROM diagnostic_events ORDER BY id DESC LIMIT ?", (EXPORT_EVENTS,)
    )
    raw = {
        "format": "goodbuddy-kb-diagnostics/1",
        "createdAt": now_iso(),
        "versions": _versions(conn),
        "settings": _settings(conn),
        "counts": _counts(conn),
        "diagnostics": {
            "summary": _summary(conn, recent=0).to_wire(),
            "events": [_event(r).to_wire() for r in events],
        },
        "taskFailures": _task_failures(conn),
        "documentFailures": _document_failures(conn),
        "externalCalls": _external_calls(conn),
        "logTail": _log_tail(data_dir),
    }
    scrubbed: dict[str, Any] = _scrub_all(raw, _scrubber(conn, data_dir))
    return scrubbed


def export(
    events: DiagnosticsLog,
    conn: sqlite3.Connection,
    data_dir: Path,
    target: str,
    overwrite: bool = False,
) -> c.DiagnosticsExportResponse:
    """Write the bundle, the events still in memory included, to ``target`` (an absolute path;
    written beside and renamed in place). An existing path is replaced only when asked, and only
    when it is a regular file."""
    path = exportfile.target_path(target, overwrite)
    events.flush()
    content = json.dumps(bundle(conn, data_dir), ensure_ascii=False, indent=2).encode("utf-8")
    exportfile.write(path, content, overwrite)
    (count,) = conn.execute("SELECT count(*) FROM diagnostic_events").fetchone()
    return c.DiagnosticsExportResponse(
        path=str(path), bytes=len(content), events=min(count, EXPORT_EVENTS)
    )
