"""The documents table: one row per file or page of a source, with four staged statuses.

A document's *generation* (its chunks, full-text, CJK and vector rows) is replaced whole
(:func:`store_parsed`); a failed re-read keeps it serving and records a retryable error."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from goodbuddy_kb.contracts.graph import NEW_LIBRARY_STRATEGY
from goodbuddy_kb.contracts.sources import (
    Document,
    DocumentFilter,
    DocumentOcr,
    DocumentStatus,
    LibrarySummary,
)
from goodbuddy_kb.main_process.cancel import CANCELLED_BY_USER
from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.ids import now_iso
from goodbuddy_kb.main_process.storage import chunks, graph_rows, reserve
from goodbuddy_kb.main_process.storage.db import transaction
from goodbuddy_kb.main_process.storage.manual_work import ManualMode
from goodbuddy_kb.main_process.storage.sort_keys import sort_key


def document_id(source_id: str, relative_path: str) -> str:
    """Stable per source and path, so chunk ids (and citations) survive re-syncs."""
    return hashlib.sha256(f"{source_id}\x1f{relative_path}".encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Known:
    id: str
    checksum: str | None
    parse_status: str
    retryable_error: str | None = None
    ocr_status: str | None = None
    parse_error: str | None = None

    @property
    def failed(self) -> bool:
        """The last read or parse of this document failed (whether or not an older generation
        still serves), or its OCR is not done: sync tries it again even when its checksum did
        not change."""
        return (
            self.parse_status == "failed"
            or self.retryable_error is not None
            or self.ocr_status in ("pending", "running", "failed", "off")
        )


def known(conn: sqlite3.Connection, source_id: str) -> dict[str, Known]:
    rows = conn.execute(
        "SELECT id, relative_path, checksum, parse_status, retryable_error, ocr_status,"
        " parse_error FROM documents WHERE source_id = ?",
        (source_id,),
    )
    return {
        r["relative_path"]: Known(
            r["id"],
            r["checksum"],
            r["parse_status"],
            r["retryable_error"],
            r["ocr_status"],
            r["parse_error"],
        )
        for r in rows
    }


def _upsert(
    conn: sqlite3.Connection,
    library_id: str,
    source_id: str,
    relative_path: str,
    title: str,
    media_type: str | None,
    checksum: str,
    size: int,
) -> str:
    doc_id = document_id(source_id, relative_path)
    stamp = now_iso()
    conn.execute(
        "INSERT INTO documents (id, library_id, source_id, relative_path, sort_key, title, media_type,"
        " checksum, size_bytes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET title = excluded.title, media_type = excluded.media_type,"
        " checksum = excluded.checksum, size_bytes = excluded.size_bytes, updated_at = excluded.updated_at",
        (
            doc_id,
            library_id,
            source_id,
            relative_path,
            sort_key(relative_path),
            title,
            media_type,
            checksum,
            size,
            stamp,
            stamp,
        ),
    )
    return doc_id


def store_parsed(
    conn: sqlite3.Connection,
    library_id: str,
    source_id: str,
    relative_path: str,
    title: str,
    media_type: str,
    checksum: str,
    size: int,
    drafts: list[ChunkDraft],
    within: Callable[[sqlite3.Connection, str], None] | None = None,
    ocr_note: str | None = None,
    parse_note: str | None = None,
    manual: ManualMode = "carry",
) -> chunks.ReplaceStats:
    """One transaction: the document row, its chunks and their index rows — all old or all new.

    ``within(conn, document_id)`` runs in the same transaction once the chunks are replaced
    (a rebuild appends the new chunks' vectors there), so readers see either generation whole.
    ``ocr_note`` (JSON) marks a generation whose text came (partly) from OCR as OCR done;
    ``parse_note`` is what the parser wants a person to know (a catalogue sentence), or None.
    A person's chunk work is carried over where the drafts allow, as ``manual`` says: with
    "keep", a generation dropping some is not stored (``ManualWorkWouldBeLost``).
    Returns what the replacement did, with the manual work it carried over and dropped. Refused
    (ENOSPC) when the disk is nearly full: its last room is for recording failures."""
    reserve.check_room_for(conn)
    with transaction(conn):
        doc_id = _upsert(
            conn, library_id, source_id, relative_path, title, media_type, checksum, size
        )
        stats = chunks.replace_document_chunks(conn, library_id, doc_id, drafts, manual)
        if within is not None:
            within(conn, doc_id)
        conn.execute(
            "UPDATE documents SET parse_status = 'done', parse_error = NULL,"
            " retryable_error = NULL, ocr_status = ?, ocr_error = NULL, ocr_note = ?,"
            " parse_note = ?, kept_old_chunks = 0 WHERE id = ?",
            (None if ocr_note is None else "done", ocr_note, parse_note, doc_id),
        )
        retrievable = refresh_retrievable(conn, doc_id)
        # New text has no graph yet: it waits for the library's extraction ("pending": a local
        # one is queued; "on_demand": the model's runs when a person starts it).
        conn.execute(GRAPH_WAITS, (doc_id,))
        if retrievable and _vectors_on(conn):
            # Its vectors are queued from now on: the row never reads "off" meanwhile.
            conn.execute(
                "UPDATE documents SET vector_status = 'pending' WHERE id = ?"
                " AND vector_status = 'disabled'",
                (doc_id,),
            )
    return stats


#: A document's graph status while it waits for an extraction, from its library's strategy:
#: "pending" (a local extraction queued), "on_demand" (a model's, once a person starts it),
#: "disabled" (the graph off); an SQL expression over ``documents``. A library with no graph
#: settings row yet has the new libraries' strategy (its documents read "disabled" before).
_WAITING = {"local": "pending", "model": "on_demand"}
GRAPH_WAITING = (
    "COALESCE((SELECT CASE json_extract(g.settings, '$.strategy')"
    + "".join(f" WHEN '{strategy}' THEN '{status}'" for strategy, status in _WAITING.items())
    + " ELSE 'disabled' END FROM graph_settings g WHERE g.library_id = documents.library_id),"
    f" '{_WAITING.get(NEW_LIBRARY_STRATEGY, 'disabled')}')"
)
GRAPH_WAITS = (
    f"UPDATE documents SET graph_error = NULL, graph_status = {GRAPH_WAITING} WHERE id = ?"
)


def _vectors_on(conn: sqlite3.Connection) -> bool:
    from goodbuddy_kb.main_process.embeddings import load_connection

    return load_connection(conn).kind != "none"


#: The full-text error of a parsed document none of whose chunks can be retrieved (none made, or
#: all disabled or deleted): never shown as ready (PRD §8.4).
NO_RETRIEVABLE_CONTENT = "no retrievable content"


def refresh_retrievable(conn: sqlite3.Connection, doc_id: str) -> int:
    """Inside the caller's transaction: the full-text status of a parsed document from its
    enabled retrievable chunks (those kept disabled across a sync are not); returns how many."""
    (retrievable,) = conn.execute(
        "SELECT count(*) FROM chunks WHERE document_id = ? AND enabled = 1 AND role != 'parent'",
        (doc_id,),
    ).fetchone()
    conn.execute(
        "UPDATE documents SET fulltext_status = ?, fulltext_error = ?"
        " WHERE id = ? AND parse_status = 'done'",
        (
            "done" if retrievable else "failed",
            None if retrievable else NO_RETRIEVABLE_CONTENT,
            doc_id,
        ),
    )
    return int(retrievable)


def store_ocr_waiting(
    conn: sqlite3.Connection,
    library_id: str,
    source_id: str,
    relative_path: str,
    title: str,
    media_type: str,
    checksum: str,
    size: int,
    status: str,
    reason: str | None = None,
) -> str:
    """A document whose scanned pages wait for the OCR stage (``pending``) or will not be read
    because the library has OCR off (``off``, with ``reason``). A serving generation (an older
    version, or the pages that had a text layer) keeps serving; a document without one is
    pending, or with OCR off failed with the reason, so it never looks ready."""
    doc_id = document_id(source_id, relative_path)
    with transaction(conn):
        serving = conn.execute(
            "SELECT 1 FROM chunks WHERE document_id = ? LIMIT 1", (doc_id,)
        ).fetchone()
        if serving is None:
            _upsert(conn, library_id, source_id, relative_path, title, media_type, checksum, size)
            if status == "off":
                conn.execute(
                    "UPDATE documents SET parse_status = 'failed', parse_error = ?,"
                    " fulltext_status = 'failed', fulltext_error = 'not indexed: OCR is off',"
                    " vector_status = 'disabled', retryable_error = NULL WHERE id = ?",
                    (reason, doc_id),
                )
            else:
                conn.execute(
                    "UPDATE documents SET parse_status = 'pending', parse_error = NULL,"
                    " fulltext_status = 'pending', fulltext_error = NULL, retryable_error = NULL"
                    " WHERE id = ?",
                    (doc_id,),
                )
        conn.execute(
            "UPDATE documents SET ocr_status = ?, ocr_error = ?, updated_at = ? WHERE id = ?",
            (status, reason, now_iso(), doc_id),
        )
    return doc_id


def set_ocr_status(
    conn: sqlite3.Connection, document_id_: str, status: str, reason: str | None = None
) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE documents SET ocr_status = ?, ocr_error = ? WHERE id = ?",
            (status, None if reason is None else reason[:500], document_id_),
        )


def mark_kept_old_chunks(conn: sqlite3.Connection, document_id_: str) -> None:
    """A rebuild skipped it to keep its manual chunk work (old chunks, until replaced)."""
    with transaction(conn):
        conn.execute("UPDATE documents SET kept_old_chunks = 1 WHERE id = ?", (document_id_,))


@dataclass(frozen=True)
class OcrWaiting:
    id: str
    source_id: str
    relative_path: str


def ocr_waiting(conn: sqlite3.Connection, library_id: str) -> list[OcrWaiting]:
    """Documents of the library whose OCR is pending (or was running when the app stopped)."""
    rows = conn.execute(
        "SELECT id, source_id, relative_path FROM documents WHERE library_id = ?"
        " AND ocr_status IN ('pending', 'running') ORDER BY relative_path, id",
        (library_id,),
    ).fetchall()
    return [OcrWaiting(r["id"], r["source_id"], r["relative_path"]) for r in rows]


def ocr_interrupted(conn: sqlite3.Connection) -> list[str]:
    """At start: documents whose OCR a crash cut off ("running") wait for it again ("pending").
    Returns the libraries (with OCR on) that had such documents, whose OCR should resume."""
    with transaction(conn):
        libraries = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT d.library_id FROM documents d JOIN libraries l"
                " ON l.id = d.library_id WHERE d.ocr_status = 'running' AND l.ocr_enabled = 1"
                " ORDER BY d.library_id"
            )
        ]
        conn.execute("UPDATE documents SET ocr_status = 'pending' WHERE ocr_status = 'running'")
    return libraries


def _ocr(row: sqlite3.Row) -> DocumentOcr | None:
    if row["ocr_status"] is None:
        return None
    try:
        note = json.loads(row["ocr_note"] or "{}")
    except ValueError:
        note = {}
    return DocumentOcr(
        status=row["ocr_status"],
        reason=row["ocr_error"],
        pages=int(note.get("pages") or 0),
        mean_confidence=note.get("meanConfidence"),
        low_confidence_lines=int(note.get("lowConfidenceCount") or 0),
        skipped_pages=int(note.get("skippedPages") or 0),
        skip_reason=note.get("skipReason"),
    )


def store_failed(
    conn: sqlite3.Connection,
    library_id: str,
    source_id: str,
    relative_path: str,
    title: str,
    checksum: str,
    size: int,
    reason: str,
) -> str:
    """A file that cannot be read or parsed. A document with a serving generation keeps it
    (chunks, index rows, vectors, checksum) and records ``reason`` as a retryable error; any
    other becomes a failed document with its reason. Returns the document id."""
    doc_id = document_id(source_id, relative_path)
    with transaction(conn):
        serving = conn.execute(
            "SELECT 1 FROM chunks WHERE document_id = ? LIMIT 1", (doc_id,)
        ).fetchone()
        if serving is not None:
            conn.execute(
                "UPDATE documents SET retryable_error = ?, updated_at = ? WHERE id = ?",
                (reason[:500], now_iso(), doc_id),
            )
            return doc_id
        _upsert(conn, library_id, source_id, relative_path, title, None, checksum, size)
        conn.execute(
            "UPDATE documents SET parse_status = 'failed', parse_error = ?, fulltext_status = 'failed',"
            " fulltext_error = 'not indexed: parsing failed', vector_status = 'disabled',"
            " retryable_error = NULL WHERE id = ?",
            (reason[:500], doc_id),
        )
    return doc_id


def store_refused(
    conn: sqlite3.Connection,
    library_id: str,
    source_id: str,
    relative_path: str,
    title: str,
    reason: str,
) -> str:
    """A path that no longer leads to a regular file inside its source (a link, a FIFO, a
    device): its content leaves the index at once — unlike a read error, nothing of it keeps
    serving — and the document stays listed as failed with ``reason``."""
    doc_id = document_id(source_id, relative_path)
    with transaction(conn):
        _upsert(conn, library_id, source_id, relative_path, title, None, "", 0)
        chunks.delete_document_chunks(conn, doc_id)
        conn.execute(
            "UPDATE documents SET parse_status = 'failed', parse_error = ?, fulltext_status = 'failed',"
            " fulltext_error = 'not indexed: parsing failed', vector_status = 'disabled',"
            " retryable_error = NULL WHERE id = ?",
            (reason[:500], doc_id),
        )
    return doc_id


def delete(conn: sqlite3.Connection, document_ids: list[str]) -> None:
    """Delete the documents with their chunks, and the graph rows only they held up."""
    marks = ",".join("?" for _ in document_ids)
    with transaction(conn):
        libraries = conn.execute(
            f"SELECT DISTINCT library_id FROM documents WHERE id IN ({marks})", document_ids
        ).fetchall()
        for doc_id in document_ids:
            chunks.delete_document_chunks(conn, doc_id)
            conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
        for (library_id,) in libraries:
            graph_rows.prune(conn, library_id)


_CANCELLED = f"d.vector_status = 'failed' AND d.vector_error IS '{CANCELLED_BY_USER}'"
_FILTERS: dict[DocumentFilter, str] = {
    "all": "",
    "failed": " AND (d.parse_status = 'failed' OR d.fulltext_status = 'failed' OR d.retryable_error"
    f" IS NOT NULL OR (d.vector_status = 'failed' AND NOT ({_CANCELLED}))"
    " OR d.ocr_status IN ('failed', 'off'))",
    "vector_missing": " AND d.vector_status != 'done'",
}


#: Distinct entities (or relations) the graph holds evidence for in a document's chunks.
_GRAPH_COUNT = (
    "(SELECT count(DISTINCT g.{column}) FROM chunks c JOIN graph_evidence g ON g.chunk_seq = c.seq"
    " WHERE c.document_id = d.id)"
)


def page(
    conn: sqlite3.Connection, library_id: str, offset: int, limit: int, filter_: DocumentFilter
) -> tuple[list[Document], int]:
    where = "d.library_id = ?" + _FILTERS[filter_]
    (total,) = conn.execute(
        f"SELECT count(*) FROM documents d WHERE {where}", (library_id,)
    ).fetchone()
    rows = conn.execute(
        "SELECT d.*, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id AND c.role != 'parent'"
        " AND c.enabled = 1) AS chunk_count, (SELECT count(*) FROM chunks c WHERE"
        " c.document_id = d.id AND c.manually_edited = 1) AS edited_chunks, (SELECT count(*)"
        " FROM chunks c WHERE c.document_id = d.id AND c.role != 'parent' AND c.enabled = 0)"
        " AS disabled_chunks, (SELECT count(*) FROM chunk_deletions x WHERE"
        " x.document_id = d.id) AS deleted_chunks, (SELECT count(*) FROM replaced_edits x"
        " WHERE x.document_id = d.id) AS replaced_edits,"
        f" {_GRAPH_COUNT.format(column='entity_id')} AS graph_entities,"
        f" {_GRAPH_COUNT.format(column='relation_id')} AS graph_relations"
        f" FROM documents d WHERE {where}"
        " ORDER BY d.sort_key, d.relative_path, d.id LIMIT ? OFFSET ?",
        (library_id, limit, offset),
    ).fetchall()
    return [
        Document(
            id=r["id"],
            library_id=r["library_id"],
            source_id=r["source_id"],
            path=r["relative_path"],
            title=r["title"],
            media_type=r["media_type"],
            size_bytes=r["size_bytes"],
            status=DocumentStatus(
                parse=r["parse_status"],
                # parsed, but nothing in it can be retrieved (PRD §8.4): never "ready"
                fulltext="empty"
                if r["parse_status"] == "done"
                and (r["fulltext_status"] == "failed" or r["chunk_count"] == 0)
                else r["fulltext_status"],
                vector=r["vector_status"],
                graph=r["graph_status"],
            ),
            error=r["parse_error"] or r["fulltext_error"] or r["vector_error"],
            retryable_error=r["retryable_error"],
            graph_error=r["graph_error"],
            note=r["parse_note"],
            chunk_count=r["chunk_count"],
            edited_chunks=r["edited_chunks"],
            disabled_chunks=r["disabled_chunks"],
            deleted_chunks=r["deleted_chunks"],
            replaced_edits=r["replaced_edits"],
            kept_old_chunks=bool(r["kept_old_chunks"]),
            graph_entities=r["graph_entities"],
            graph_relations=r["graph_relations"],
            updated_at=r["updated_at"],
            ocr=_ocr(r),
        )
        for r in rows
    ], int(total)


def summary(conn: sqlite3.Connection, library_id: str) -> LibrarySummary:
    row = conn.execute(
        "SELECT count(*) AS documents,"
        " sum(fulltext_status = 'done' AND retrievable) AS fulltext,"
        " sum(vector_status = 'done' AND retrievable) AS vectorised,"
        " sum(parse_status = 'failed' OR (vector_status = 'failed' AND NOT cancelled)"
        " OR retryable_error IS NOT NULL OR ocr_status = 'failed') AS failed,"
        " sum(cancelled) AS cancelled, sum(retryable_error IS NOT NULL AND retrievable) AS previous,"
        " sum(vector_status = 'incompatible' AND retrievable) AS incompatible,"
        " sum(parse_status IN ('pending', 'running') OR ocr_status IN ('pending', 'running') OR"
        " (parse_status = 'done' AND retrievable AND fulltext_status = 'done' AND vector_status"
        " IN ('pending', 'running'))) AS pending,"
        " sum(parse_status = 'done' AND NOT retrievable) AS empty,"
        " sum(kept_old_chunks) AS kept, (SELECT settings_pending_rebuild FROM libraries"
        " WHERE id = ?) AS pending_rebuild"
        " FROM (SELECT d.*, EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id"
        " AND c.role != 'parent' AND c.enabled = 1) AS retrievable,"
        f" {_CANCELLED} AS cancelled FROM documents d WHERE d.library_id = ?)",
        (library_id, library_id),
    ).fetchone()
    return LibrarySummary(
        documents=row["documents"] or 0,
        fulltext_usable=row["fulltext"] or 0,
        vectorised=row["vectorised"] or 0,
        failed=row["failed"] or 0,
        pending=row["pending"] or 0,
        no_retrievable_content=row["empty"] or 0,
        settings_pending_rebuild=bool(row["pending_rebuild"]),
        kept_old_chunks=row["kept"] or 0,
        vector_cancelled=row["cancelled"] or 0,
        failed_serving_previous=row["previous"] or 0,
        waiting_vector_rebuild=row["incompatible"] or 0,
    )
