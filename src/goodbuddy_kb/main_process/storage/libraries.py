"""The libraries table: create, list, rename, delete, and each library's versioned settings."""

from __future__ import annotations

import sqlite3

from pydantic import ValidationError

from goodbuddy_kb.contracts.errors import ConflictError, NotFoundError
from goodbuddy_kb.contracts.library import Library, LibrarySettings
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings, KnowledgeRetrievalSettings
from goodbuddy_kb.main_process.ids import new_id, now_iso
from goodbuddy_kb.main_process.storage.db import transaction

#: The library's documents a rebuild kept on old chunks for their manual work (a column of a
#: query over ``libraries``).
_KEPT_OLD_CHUNKS = (
    "(SELECT count(*) FROM documents d WHERE d.library_id = libraries.id"
    " AND d.kept_old_chunks = 1) AS kept_old_chunks"
)
_COLUMNS = (
    "id, name, created_at, updated_at, settings_pending_rebuild, external_access, "
    + _KEPT_OLD_CHUNKS
)


def have_retrievable_chunks(conn: sqlite3.Connection, library_ids: list[str]) -> bool:
    """Whether these libraries hold any chunk a search can return (enabled, not a parent):
    none is an empty library to a search, and nothing for a vector index to wait for."""
    marks = ",".join("?" for _ in library_ids)
    row = conn.execute(
        f"SELECT 1 FROM chunks WHERE library_id IN ({marks}) AND enabled = 1"
        " AND role != 'parent' LIMIT 1",
        tuple(library_ids),
    ).fetchone()
    return row is not None


def _library(row: sqlite3.Row) -> Library:
    return Library(
        id=row["id"],
        name=row["name"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        settings_pending_rebuild=bool(row["settings_pending_rebuild"]),
        kept_old_chunks=row["kept_old_chunks"],
        external_access=bool(row["external_access"]),
    )


def _name_taken(conn: sqlite3.Connection, name: str, except_id: str | None = None) -> bool:
    row = conn.execute(
        "SELECT id FROM libraries WHERE name = ? COLLATE NOCASE AND id IS NOT ?", (name, except_id)
    ).fetchone()
    return row is not None


def create(conn: sqlite3.Connection, name: str) -> Library:
    with transaction(conn):
        if _name_taken(conn, name):
            raise ConflictError(f"a library named “{name}” already exists", {"field": "name"})
        (count,) = conn.execute("SELECT count(*) FROM libraries").fetchone()
        if count >= MAX_LIBRARIES:
            raise ConflictError(f"at most {MAX_LIBRARIES} libraries per data directory")
        stamp = now_iso()
        library_id = new_id()
        conn.execute(
            "INSERT INTO libraries (id, name, retrieval_settings, chunking_settings,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                library_id,
                name,
                KnowledgeRetrievalSettings().model_dump_json(by_alias=True),
                KnowledgeChunkingSettings().model_dump_json(by_alias=True),
                stamp,
                stamp,
            ),
        )
        mark_built(conn, library_id)
    return get(conn, library_id)


#: ``built_chunking`` as the library's current chunking settings and contextual indexing.
_CURRENT_BUILD = (
    "json_object('chunking', json(chunking_settings), 'contextual', contextual_indexing)"
)


def mark_built(conn: sqlite3.Connection, library_id: str) -> None:
    """Every document of the library is now chunked with its current settings."""
    conn.execute(
        f"UPDATE libraries SET built_chunking = {_CURRENT_BUILD} WHERE id = ?", (library_id,)
    )


def _back_to_built(conn: sqlite3.Connection, library_id: str) -> None:
    """Settings put back to those every document was chunked with need no rebuild."""
    conn.execute(
        "UPDATE libraries SET settings_pending_rebuild = 0 WHERE id = ? AND"
        " settings_pending_rebuild = 1 AND built_chunking IS NOT NULL AND"
        f" json(built_chunking) = {_CURRENT_BUILD}",
        (library_id,),
    )


def get(conn: sqlite3.Connection, library_id: str) -> Library:
    row = conn.execute(f"SELECT {_COLUMNS} FROM libraries WHERE id = ?", (library_id,)).fetchone()
    if row is None:
        raise NotFoundError("library not found", {"libraryId": library_id})
    return _library(row)


def list_all(conn: sqlite3.Connection) -> list[Library]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM libraries ORDER BY name COLLATE NOCASE, id")
    return [_library(row) for row in rows]


def rename(conn: sqlite3.Connection, library_id: str, name: str) -> Library:
    with transaction(conn):
        get(conn, library_id)
        if _name_taken(conn, name, except_id=library_id):
            raise ConflictError(f"a library named “{name}” already exists", {"field": "name"})
        conn.execute(
            "UPDATE libraries SET name = ?, updated_at = ? WHERE id = ?",
            (name, now_iso(), library_id),
        )
    return get(conn, library_id)


def delete(conn: sqlite3.Connection, library_id: str) -> Library:
    """Removes the library and, by cascade, its sources, documents, chunks and tasks."""
    with transaction(conn):
        library = get(conn, library_id)
        conn.execute("DELETE FROM libraries WHERE id = ?", (library_id,))
    return library


def _retrieval(raw: str) -> KnowledgeRetrievalSettings:
    try:
        return KnowledgeRetrievalSettings.model_validate_json(raw)
    except ValidationError:
        # A row from an older or damaged version: serve the compatible defaults (PRD §9.1).
        return KnowledgeRetrievalSettings()


def _chunking(raw: str) -> KnowledgeChunkingSettings:
    try:
        return KnowledgeChunkingSettings.model_validate_json(raw)
    except ValidationError:
        return KnowledgeChunkingSettings()


def get_settings(conn: sqlite3.Connection, library_id: str) -> LibrarySettings:
    row = conn.execute(
        "SELECT retrieval_settings, chunking_settings, contextual_indexing,"
        " settings_pending_rebuild, external_access, ocr_enabled, assistant_instructions, "
        + _KEPT_OLD_CHUNKS
        + " FROM libraries WHERE id = ?",
        (library_id,),
    ).fetchone()
    if row is None:
        raise NotFoundError("library not found", {"libraryId": library_id})
    return LibrarySettings(
        library_id=library_id,
        retrieval=_retrieval(row["retrieval_settings"]),
        chunking=_chunking(row["chunking_settings"]),
        contextual_indexing=bool(row["contextual_indexing"]),
        settings_pending_rebuild=bool(row["settings_pending_rebuild"]),
        kept_old_chunks=row["kept_old_chunks"],
        external_access=bool(row["external_access"]),
        ocr_enabled=bool(row["ocr_enabled"]),
        assistant_instructions=row["assistant_instructions"],
    )


def update_settings(
    conn: sqlite3.Connection,
    library_id: str,
    retrieval: KnowledgeRetrievalSettings | None,
    chunking: KnowledgeChunkingSettings | None,
    contextual_indexing: bool | None = None,
    external_access: bool | None = None,
    ocr_enabled: bool | None = None,
    assistant_instructions: str | None = None,
) -> LibrarySettings:
    """Retrieval settings apply at once; a chunking or contextual-indexing change only marks the
    library "settings updated, waiting for rebuild" and leaves existing chunks untouched.
    Switching OCR on puts the documents that waited with OCR off back in the OCR queue."""
    with transaction(conn):
        current = get_settings(conn, library_id)
        stamp = now_iso()
        if retrieval is not None:
            conn.execute(
                "UPDATE libraries SET retrieval_settings = ?, updated_at = ? WHERE id = ?",
                (retrieval.model_dump_json(by_alias=True), stamp, library_id),
            )
        # a change that waits for a rebuild (what the chunks or their index text would be)
        waits = False
        if chunking is not None and chunking != current.chunking:
            conn.execute(
                "UPDATE libraries SET chunking_settings = ?, settings_pending_rebuild = 1,"
                " updated_at = ? WHERE id = ?",
                (chunking.model_dump_json(by_alias=True), stamp, library_id),
            )
            waits = True
        if contextual_indexing is not None and contextual_indexing != current.contextual_indexing:
            conn.execute(
                "UPDATE libraries SET contextual_indexing = ?, settings_pending_rebuild = 1,"
                " updated_at = ? WHERE id = ?",
                (int(contextual_indexing), stamp, library_id),
            )
            waits = True
        if waits:
            # every document now waits for a rebuild with these settings: one the last rebuild
            # skipped is no longer the exception the library's header singled out
            conn.execute(
                "UPDATE documents SET kept_old_chunks = 0 WHERE library_id = ? AND kept_old_chunks = 1",
                (library_id,),
            )
        _back_to_built(conn, library_id)
        if external_access is not None and external_access != current.external_access:
            # Applies at once: the backend re-reads this flag on every external call.
            conn.execute(
                "UPDATE libraries SET external_access = ?, updated_at = ? WHERE id = ?",
                (int(external_access), stamp, library_id),
            )
        if assistant_instructions is not None:
            # Read by the next chat request; nothing indexed depends on it.
            conn.execute(
                "UPDATE libraries SET assistant_instructions = ?, updated_at = ? WHERE id = ?",
                (assistant_instructions.strip(), stamp, library_id),
            )
        if ocr_enabled is not None and ocr_enabled != current.ocr_enabled:
            conn.execute(
                "UPDATE libraries SET ocr_enabled = ?, updated_at = ? WHERE id = ?",
                (int(ocr_enabled), stamp, library_id),
            )
            if ocr_enabled:
                # A scan that has nothing serving waits again instead of showing the old
                # "OCR is off" failure; one with an older generation keeps serving it.
                conn.execute(
                    "UPDATE documents SET parse_status = 'pending', parse_error = NULL,"
                    " fulltext_status = 'pending', fulltext_error = NULL"
                    " WHERE library_id = ? AND ocr_status = 'off' AND parse_status = 'failed'",
                    (library_id,),
                )
                conn.execute(
                    "UPDATE documents SET ocr_status = 'pending', ocr_error = NULL"
                    " WHERE library_id = ? AND ocr_status = 'off'",
                    (library_id,),
                )
    return get_settings(conn, library_id)
