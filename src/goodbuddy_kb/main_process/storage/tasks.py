"""The tasks table: task history that survives a restart (an interrupted task says so)."""

from __future__ import annotations

import json
import sqlite3

from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.tasks import TaskInfo, TaskKind, TaskState, TaskSummary
from goodbuddy_kb.main_process.ids import new_id, now_iso
from goodbuddy_kb.main_process.storage.db import transaction

#: A task's row with its library's name.
_SELECT = (
    "SELECT t.*, l.name AS library_name FROM tasks t LEFT JOIN libraries l ON l.id = t.library_id"
)


def _info(row: sqlite3.Row) -> TaskInfo:
    details = json.loads(row["details"])
    return TaskInfo(
        id=row["id"],
        library_id=row["library_id"],
        source_id=details.get("sourceId"),
        kind=row["kind"],
        state=row["state"],
        done=row["progress_done"],
        total=row["progress_total"],
        failed_documents=int(details.get("failed", 0)),
        current=details.get("current"),
        error=row["error"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        document_id=details.get("documentId"),
        summary=TaskSummary.model_validate(details["summary"]) if details.get("summary") else None,
        rate=details.get("rate"),
        eta_seconds=details.get("etaSeconds"),
        library_name=row["library_name"],
    )


def create(
    conn: sqlite3.Connection,
    library_id: str,
    kind: TaskKind,
    source_id: str | None,
    document_id: str | None = None,
) -> TaskInfo:
    task_id = new_id()
    details = {"sourceId": source_id, "documentId": document_id}
    with transaction(conn):
        conn.execute(
            "INSERT INTO tasks (id, library_id, kind, state, details, created_at) VALUES (?, ?, ?, 'queued', ?, ?)",
            (task_id, library_id, kind, json.dumps(details), now_iso()),
        )
    return get(conn, task_id)


def get(conn: sqlite3.Connection, task_id: str) -> TaskInfo:
    row = conn.execute(f"{_SELECT} WHERE t.id = ?", (task_id,)).fetchone()
    if row is None:
        raise NotFoundError("task not found", {"taskId": task_id})
    return _info(row)


def update(
    conn: sqlite3.Connection,
    task_id: str,
    state: TaskState,
    done: int,
    total: int,
    failed: int,
    current: str | None,
    error: str | None = None,
    summary: TaskSummary | None = None,
    rate: float | None = None,
    eta_s: float | None = None,
) -> TaskInfo:
    """Record progress; ``rate`` (items per second) and ``eta_s`` replace the previous ones."""
    finished = state in ("completed", "failed", "cancelled", "interrupted")
    with transaction(conn):
        row = conn.execute("SELECT details FROM tasks WHERE id = ?", (task_id,)).fetchone()
        details = json.loads(row["details"]) if row else {}
        details.update({"failed": failed, "current": current})
        details["rate"] = None if rate is None else round(rate, 3)
        details["etaSeconds"] = None if eta_s is None or finished else round(eta_s, 1)
        if summary is not None:
            details["summary"] = summary.to_wire()
        conn.execute(
            "UPDATE tasks SET state = ?, progress_done = ?, progress_total = ?, error = ?, details = ?,"
            " started_at = coalesce(started_at, ?), finished_at = ? WHERE id = ?",
            (
                state,
                done,
                total,
                error,
                json.dumps(details),
                now_iso(),
                now_iso() if finished else None,
                task_id,
            ),
        )
    return get(conn, task_id)


def list_recent(conn: sqlite3.Connection, library_id: str | None, limit: int) -> list[TaskInfo]:
    if library_id is None:
        rows = conn.execute(f"{_SELECT} ORDER BY t.created_at DESC, t.id LIMIT ?", (limit,))
    else:
        rows = conn.execute(
            f"{_SELECT} WHERE t.library_id = ? ORDER BY t.created_at DESC, t.id LIMIT ?",
            (library_id, limit),
        )
    return [_info(r) for r in rows]


def at_work(conn: sqlite3.Connection, library_id: str) -> list[TaskInfo]:
    """The library's tasks queued or running."""
    rows = conn.execute(
        f"{_SELECT} WHERE t.library_id = ? AND t.state IN ('queued', 'running')", (library_id,)
    )
    return [_info(r) for r in rows]


def active(conn: sqlite3.Connection, library_id: str, kind: str) -> bool:
    """Whether a task of ``kind`` for the library is queued or running."""
    row = conn.execute(
        "SELECT 1 FROM tasks WHERE library_id = ? AND kind = ? AND state IN ('queued', 'running')"
        " LIMIT 1",
        (library_id, kind),
    ).fetchone()
    return row is not None


#: The reason a task stopped by the app's closing records (its token's, ``runner.shutdown``).
APP_CLOSING = "the app is closing"
#: The reason of a task whose library was deleted while it waited or ran.
LIBRARY_DELETED = "the library was deleted"
#: What a task a previous backend left queued or running reads after a restart (not "the app
#: closed …; run it again": the backend may have been killed, and a vectorisation goes on by
#: itself; a helper's try).
INTERRUPTED = "the app stopped before the task finished"


def cut_off(conn: sqlite3.Connection, kind: str) -> list[str]:
    """The libraries whose latest task of ``kind`` the app's closing or a crash cut off (not a
    person's cancel, nor a failure)."""
    rows = conn.execute(
        "SELECT t.library_id FROM tasks t WHERE t.kind = ? AND t.library_id IS NOT NULL"
        " AND t.created_at = (SELECT max(u.created_at) FROM tasks u WHERE u.kind = t.kind"
        " AND u.library_id = t.library_id)"
        " AND (t.state = 'interrupted' OR (t.state = 'cancelled' AND t.error = ?))"
        " ORDER BY t.library_id",
        (kind, APP_CLOSING),
    ).fetchall()
    return list(dict.fromkeys(r[0] for r in rows))


def mark_interrupted(conn: sqlite3.Connection) -> int:
    """At start-up: tasks a previous backend left queued or running were interrupted."""
    with transaction(conn):
        cursor = conn.execute(
            "UPDATE tasks SET state = 'interrupted', finished_at = ?,"
            " error = coalesce(error, ?) WHERE state IN ('queued', 'running')",
            (now_iso(), INTERRUPTED),
        )
    return cursor.rowcount
