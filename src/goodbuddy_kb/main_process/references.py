"""Citations: the context around a cited chunk, and opening its source — both re-checked.

The client sends only ids (library, document, chunk). The backend re-reads the stored source,
checks that each id belongs to the one before it, and opens only a stored regular local file
inside its source (no symlink leading elsewhere) or a stored http(s) URL. An e-mail attachment's
source is the message it came with.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

from goodbuddy_kb.contracts.errors import ConflictError, NotFoundError, UnavailableError
from goodbuddy_kb.contracts.paths import message_of
from goodbuddy_kb.contracts.retrieval import (
    ReferenceChunk,
    ReferenceContextResponse,
    ReferenceRequest,
    ReferenceState,
)
from goodbuddy_kb.main_process.chunking.drafts import checksum, stored_prefixed_text

STALE = "This citation is no longer valid: the passage was deleted or disabled, or its document changed."


_CHUNK = (
    "SELECT c.*, d.title, d.relative_path, s.kind AS source_kind, s.location, l.name AS library_name"
    " FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id"
    " JOIN libraries l ON l.id = c.library_id"
)


def _chunk(conn: sqlite3.Connection, ref: ReferenceRequest) -> sqlite3.Row | None:
    """The cited chunk, checked to belong to the cited document and library; when it is gone
    (its file deleted and put back, its source removed and added again, its library rebuilt),
    the same text where the library holds it now, enabled, in the cited document first: a
    citation of a restored file stayed "no longer valid" beside the very passage it quoted."""
    row: sqlite3.Row | None = conn.execute(
        _CHUNK + " WHERE c.id = ? AND c.document_id = ? AND c.library_id = ? AND d.library_id = ?",
        (ref.chunk_id, ref.document_id, ref.library_id, ref.library_id),
    ).fetchone()
    if row is None and ref.checksum:
        row = conn.execute(
            _CHUNK + " WHERE c.library_id = ? AND d.library_id = ? AND c.checksum = ?"
            " AND c.enabled = 1 AND c.role != 'parent'"
            " ORDER BY c.document_id = ? DESC, c.document_id, c.ordinal LIMIT 1",
            (ref.library_id, ref.library_id, ref.checksum, ref.document_id),
        ).fetchone()
    return row


def context(
    conn: sqlite3.Connection, ref: ReferenceRequest, neighbours: int = 1
) -> ReferenceContextResponse:
    row = _chunk(conn, ref)
    if row is None or not row["enabled"]:
        return ReferenceContextResponse(
            valid=False,
            message=STALE,
            library_name=None,
            document_title=None,
            document_path=None,
            source_kind=None,
            source_location=None,
            locator=None,
            chunks=[],
        )
    if row["role"] == "child" and row["parent_chunk_id"]:
        parent = conn.execute(
            "SELECT id, ordinal, role, content FROM chunks WHERE id = ? AND enabled = 1",
            (row["parent_chunk_id"],),
        ).fetchone()
        around = [parent] if parent else []
        chunks = [
            ReferenceChunk(
                chunk_id=r["id"],
                ordinal=r["ordinal"],
                role=r["role"],
                content=r["content"],
                is_hit=False,
            )
            for r in around
        ]
        chunks.append(
            ReferenceChunk(
                chunk_id=row["id"],
                ordinal=row["ordinal"],
                role="child",
                content=row["content"],
                is_hit=True,
            )
        )
    else:
        rows = conn.execute(
            "SELECT id, ordinal, role, content FROM chunks WHERE document_id = ? AND role = ? AND enabled = 1"
            " AND ordinal BETWEEN ? AND ? ORDER BY ordinal",
            (
                row["document_id"],
                row["role"],
                row["ordinal"] - neighbours,
                row["ordinal"] + neighbours,
            ),
        ).fetchall()
        chunks = [
            ReferenceChunk(
                chunk_id=r["id"],
                ordinal=r["ordinal"],
                role=r["role"],
                content=r["content"],
                is_hit=r["id"] == row["id"],
            )
            for r in rows
        ]
    location = (
        row["location"]
        if row["source_kind"] != "folder"
        else str(Path(row["location"]) / row["relative_path"])
    )
    return ReferenceContextResponse(
        valid=True,
        message=None,
        library_name=row["library_name"],
        document_title=row["title"],
        document_path=row["relative_path"],
        source_kind=row["source_kind"],
        source_location=location,
        locator=json.loads(row["locator"]),
        chunks=chunks,
        changed=_changed(row, ref),
    )


def state(conn: sqlite3.Connection, ref: ReferenceRequest) -> ReferenceState:
    """What became of a cited passage, as :func:`context` would find it: gone (no such chunk
    in its document and library, nor its text elsewhere in the library, or switched off),
    changed (edited since the answer) or valid."""
    row = _chunk(conn, ref)
    if row is None or not row["enabled"]:
        return "gone"
    return "changed" if _changed(row, ref) else "valid"


def _changed(row: sqlite3.Row, ref: ReferenceRequest) -> bool:
    return bool(ref.checksum) and ref.checksum != row["checksum"] and not _same_text(row, ref)


def _same_text(row: sqlite3.Row, ref: ReferenceRequest) -> bool:
    """Whether the checksum the citation kept is of the chunk's text as it is now, indexed with
    or without its contextual prefix: a rebuild that only turned the prefix on or off changes
    the checksum, not the passage (every older citation said its passage was edited since)."""
    forms = (
        unicodedata.normalize("NFC", row["content"]),
        stored_prefixed_text(row, row["content"]),
    )
    return ref.checksum in {checksum(form) for form in forms}


def open_target(conn: sqlite3.Connection, ref: ReferenceRequest) -> tuple[str, str]:
    """The checked target to open: ("file", path) or ("url", url); raises when refused. A
    passage gone from a document still there (its file changed and was synced again, or rebuilt
    into new chunks) opens that document: "Open source" said the source was no longer in the
    libraries while the file sat in them (a helper's try)."""
    row = _chunk(conn, ref)
    if row is None:
        try:
            return document_target(conn, ref.library_id, ref.document_id)
        except NotFoundError:
            raise NotFoundError("citation no longer valid: nothing was opened") from None
    return checked_target(row["source_kind"], row["location"], row["relative_path"])


def document_target(conn: sqlite3.Connection, library_id: str, document_id: str) -> tuple[str, str]:
    """A document's own checked source (a failed document's too): ("file", path) or ("url",
    url); the document must belong to the library."""
    row = conn.execute(
        "SELECT d.relative_path, s.kind AS source_kind, s.location FROM documents d"
        " JOIN sources s ON s.id = d.source_id WHERE d.id = ? AND d.library_id = ?"
        " AND s.library_id = ?",
        (document_id, library_id, library_id),
    ).fetchone()
    if row is None:
        raise NotFoundError("document not found", {"documentId": document_id})
    return checked_target(row["source_kind"], row["location"], row["relative_path"])


def checked_target(kind: str, location: str, relative_path: str | None) -> tuple[str, str]:
    """A stored source's target, checked: an http(s) page, or a regular local file inside its
    source that no link leads elsewhere."""
    if kind == "web":
        url = str(relative_path or location)
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConflictError("only http(s) pages can be opened; nothing was opened")
        return "url", url
    root = Path(location) if kind == "folder" else Path(location).parent
    # An e-mail attachment opens as the message it came with.
    relative = message_of(relative_path or "") or (relative_path or "")
    path = Path(location) / relative if kind == "folder" else Path(location)
    try:
        info = os.lstat(path)
        real_root = root.resolve(strict=True)
        real = path.resolve(strict=True)
    except OSError as exc:
        raise UnavailableError("the source file was moved or deleted; nothing was opened") from exc
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(os.stat(real).st_mode):
        raise ConflictError(
            "the stored file was replaced by a link or is not a regular file; nothing was opened"
        )
    try:
        real.relative_to(real_root)
    except ValueError as exc:
        raise ConflictError(
            "the stored file now leads outside its source; nothing was opened"
        ) from exc
    return "file", str(real)
