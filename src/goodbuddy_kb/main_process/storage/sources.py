"""The sources table: files, folders and web pages a library draws its documents from."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from goodbuddy_kb.contracts.errors import ConflictError, NotFoundError
from goodbuddy_kb.contracts.sources import Source, SourceKind, SourceState
from goodbuddy_kb.main_process.ids import new_id, now_iso
from goodbuddy_kb.main_process.storage import graph_rows
from goodbuddy_kb.main_process.storage.db import transaction


@dataclass(frozen=True)
class SourceRow:
    id: str
    library_id: str
    kind: SourceKind
    location: str
    include: list[str]
    exclude: list[str]
    watch: bool
    state: SourceState


def _row(row: sqlite3.Row) -> SourceRow:
    options = json.loads(row["options"])
    return SourceRow(
        row["id"],
        row["library_id"],
        row["kind"],
        row["location"],
        list(options.get("include", [])),
        list(options.get("exclude", [])),
        bool(row["watch"]),
        row["state"],
    )


def add(
    conn: sqlite3.Connection,
    library_id: str,
    kind: SourceKind,
    location: str,
    include: list[str],
    exclude: list[str],
    watch: bool,
) -> SourceRow:
    with transaction(conn):
        clash = conn.execute(
            "SELECT id FROM sources WHERE library_id = ? AND location = ?", (library_id, location)
        ).fetchone()
        if clash is not None:
            raise ConflictError("this library already has that source", {"sourceId": clash[0]})
        stamp = now_iso()
        source_id = new_id()
        conn.execute(
            "INSERT INTO sources (id, library_id, kind, location, options, watch, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source_id,
                library_id,
                kind,
                location,
                json.dumps({"include": include, "exclude": exclude}),
                int(watch),
                stamp,
                stamp,
            ),
        )
    return get(conn, library_id, source_id)


def get(conn: sqlite3.Connection, library_id: str, source_id: str) -> SourceRow:
    """The source, checking that it belongs to ``library_id``."""
    row = conn.execute(
        "SELECT * FROM sources WHERE id = ? AND library_id = ?", (source_id, library_id)
    ).fetchone()
    if row is None:
        raise NotFoundError("source not found in this library", {"sourceId": source_id})
    return _row(row)


def list_rows(conn: sqlite3.Connection, library_id: str | None = None) -> list[SourceRow]:
    if library_id is None:
        rows = conn.execute("SELECT * FROM sources ORDER BY created_at, id")
    else:
        rows = conn.execute(
            "SELECT * FROM sources WHERE library_id = ? ORDER BY created_at, id", (library_id,)
        )
    return [_row(r) for r in rows]


def describe(conn: sqlite3.Connection, library_id: str) -> list[Source]:
    rows = conn.execute(
        "SELECT s.*, (SELECT count(*) FROM documents d WHERE d.source_id = s.id) AS documents"
        " FROM sources s WHERE s.library_id = ? ORDER BY s.created_at, s.id",
        (library_id,),
    ).fetchall()
    out = []
    for row in rows:
        options = json.loads(row["options"])
        out.append(
            Source(
                id=row["id"],
                library_id=row["library_id"],
                kind=row["kind"],
                location=row["location"],
                include=list(options.get("include", [])),
                exclude=list(options.get("exclude", [])),
                watch=bool(row["watch"]),
                state=row["state"],
                state_reason=row["state_reason"],
                last_synced_at=row["last_synced_at"],
                document_count=row["documents"],
                file_count=options.get("fileCount"),
            )
        )
    return out


def set_state(
    conn: sqlite3.Connection,
    source_id: str,
    state: SourceState,
    reason: str | None,
    file_count: int | None = None,
    synced: bool = False,
    not_imported: int | None = None,
) -> None:
    """``not_imported``: files of the folder past the per-source limit, not in the library."""
    with transaction(conn):
        row = conn.execute("SELECT options FROM sources WHERE id = ?", (source_id,)).fetchone()
        if row is None:
            return
        options = json.loads(row["options"])
        if file_count is not None:
            options["fileCount"] = file_count
        if not_imported is not None:
            options["notImported"] = not_imported
        stamp = now_iso()
        conn.execute(
            "UPDATE sources SET state = ?, state_reason = ?, options = ?, updated_at = ?,"
            " last_synced_at = CASE WHEN ? THEN ? ELSE last_synced_at END WHERE id = ?",
            (state, reason, json.dumps(options), stamp, int(synced), stamp, source_id),
        )


def set_watch(conn: sqlite3.Connection, library_id: str, source_id: str, watch: bool) -> SourceRow:
    with transaction(conn):
        get(conn, library_id, source_id)
        conn.execute(
            "UPDATE sources SET watch = ?, updated_at = ? WHERE id = ?",
            (int(watch), now_iso(), source_id),
        )
    return get(conn, library_id, source_id)


def add_exclusion(conn: sqlite3.Connection, library_id: str, source_id: str, pattern: str) -> None:
    """The folder source leaves ``pattern`` out of its listings from now on."""
    with transaction(conn):
        get(conn, library_id, source_id)
        (options,) = conn.execute(
            "SELECT options FROM sources WHERE id = ?", (source_id,)
        ).fetchone()
        kept = json.loads(options)
        exclude = list(kept.get("exclude", []))
        if pattern not in exclude:
            kept["exclude"] = [*exclude, pattern]
            conn.execute(
                "UPDATE sources SET options = ?, updated_at = ? WHERE id = ?",
                (json.dumps(kept), now_iso(), source_id),
            )


def remove(conn: sqlite3.Connection, library_id: str, source_id: str) -> int:
    """Removes the source and, by cascade, its documents, chunks and index rows."""
    with transaction(conn):
        get(conn, library_id, source_id)
        (count,) = conn.execute(
            "SELECT count(*) FROM documents WHERE source_id = ?", (source_id,)
        ).fetchone()
        conn.execute("DELETE FROM sources WHERE id = ?", (source_id,))
        graph_rows.prune(conn, library_id)
    return int(count)


def not_imported(conn: sqlite3.Connection, library_id: str) -> int:
    """Files of the library's folders left out by the per-source limit (as their last sync
    counted them)."""
    rows = conn.execute(
        "SELECT options FROM sources WHERE library_id = ? AND state = 'overflow'", (library_id,)
    ).fetchall()
    return sum(int(json.loads(r["options"]).get("notImported", 0)) for r in rows)
