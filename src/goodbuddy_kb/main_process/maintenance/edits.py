"""Editing, enabling/disabling and deleting one chunk, each in one transaction with its
full-text and CJK rows (through :mod:`lexical.index`), its vector's invalidation (the 0005
triggers) and the document's full-text status ("no retrievable content" when nothing is left).

Every id is re-checked: the chunk must belong to the document and the document to the library.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from dataclasses import dataclass

from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.main_process.chunking.drafts import (
    canonical_index_text,
    checksum,
    stored_prefixed_text,
)
from goodbuddy_kb.main_process.rebuild.document import get_document
from goodbuddy_kb.main_process.storage import chunks, documents, libraries, manual_work
from goodbuddy_kb.main_process.storage.db import transaction


def owned_chunk(
    conn: sqlite3.Connection, library_id: str, document_id: str, chunk_id: str
) -> sqlite3.Row:
    """The chunk's row with its document's title, after checking chunk ∈ document ∈ library."""
    libraries.get(conn, library_id)
    get_document(conn, library_id, document_id)
    row: sqlite3.Row | None = conn.execute(
        "SELECT c.*, d.title FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE c.id = ? AND c.document_id = ? AND c.library_id = ?",
        (chunk_id, document_id, library_id),
    ).fetchone()
    if row is None:
        raise NotFoundError("chunk not found in this document", {"chunkId": chunk_id})
    return row


def index_text_for(row: sqlite3.Row, content: str) -> str:
    """The index text of edited content under the chunk's own prefix rule: a chunk indexed with
    a contextual prefix gets it regenerated from the document title and the chunk's headings,
    page and block type; one indexed without keeps none. The prefix is never shown."""
    had_prefix = row["index_text"] != unicodedata.normalize("NFC", row["content"])
    if not had_prefix:
        return canonical_index_text(content, None)
    return stored_prefixed_text(row, content)


@dataclass(frozen=True)
class ChunkChange:
    seq: int
    content_changed: bool
    enabled_changed: bool
    #: Enabled retrievable chunks the document has after the change.
    retrievable: int


def update_chunk(
    conn: sqlite3.Connection,
    library_id: str,
    document_id: str,
    chunk_id: str,
    content: str | None,
    enabled: bool | None,
) -> ChunkChange:
    """New content (a manual edit) and/or a new enabled state, in one transaction."""
    with transaction(conn):
        row = owned_chunk(conn, library_id, document_id, chunk_id)
        edited = False
        if content is not None:
            index_text = index_text_for(row, content)
            edited = chunks.edit_content_in(
                conn, chunk_id, content, index_text, checksum(index_text)
            )
        toggled = enabled is not None and chunks.set_enabled_in(conn, chunk_id, enabled)
        retrievable = documents.refresh_retrievable(conn, document_id)
    return ChunkChange(row["seq"], edited, toggled, retrievable)


@dataclass(frozen=True)
class ChunkRemoval:
    detached_children: int
    retrievable: int


def delete_chunk(
    conn: sqlite3.Connection, library_id: str, document_id: str, chunk_id: str
) -> ChunkRemoval:
    """Delete one chunk from every index (never the original file); a parent's children stay
    as standalone chunks. The deletion is remembered, so a rebuild or re-sync that chunks the
    same text again leaves it out."""
    with transaction(conn):
        row = owned_chunk(conn, library_id, document_id, chunk_id)
        manual_work.record_deletion(conn, row)
        detached = chunks.delete_in(conn, chunk_id)
        retrievable = documents.refresh_retrievable(conn, document_id)
    return ChunkRemoval(detached, retrievable)
