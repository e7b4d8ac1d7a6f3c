"""Contracts of chunk maintenance (PRD §8.4, §10): `knowledge:chunks:list`,
`knowledge:chunk:get`, `knowledge:chunk:update`, `knowledge:chunk:delete` and
`knowledge:chunks:dismissReplaced` (forget the edits a changed file replaced, kept until then).

Every request names the library, the document and (but for the listing) the chunk; the backend
re-checks that the chunk belongs to the document and the document to the library.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.limits import MAX_CHUNK_CONTENT_CHARACTERS, MAX_CHUNKS_PER_PAGE

ChunkRole = Literal["standalone", "parent", "child"]

#: Longest text searched for within one document's chunks.
MAX_CHUNK_SEARCH_CHARACTERS = 200
#: Characters of content a listing shows per chunk (the full text comes from `chunk:get`).
CHUNK_PREVIEW_CHARACTERS = 160

#: An opaque page cursor handed back by the previous page.
Cursor = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[0-9]{1,9}$")]


class ChunksListRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId
    #: The ``nextCursor`` of the previous page; the first page when omitted.
    cursor: Cursor | None = None
    limit: int = Field(50, ge=1, le=MAX_CHUNKS_PER_PAGE)
    #: Text the chunk's content or heading contains (case-insensitive for Latin letters).
    search: str | None = Field(None, max_length=MAX_CHUNK_SEARCH_CHARACTERS)
    role: ChunkRole | None = None


class ChunkSummary(ContractModel):
    id: EntityId
    ordinal: int
    role: ChunkRole
    #: A child's parent, by id and by the parent's ordinal (so the link can be said in words).
    parent_chunk_id: str | None
    parent_ordinal: int | None
    #: How many children a parent has (0 for the other roles).
    child_count: int
    heading_path: list[str]
    locator: dict[str, Any]
    character_count: int
    enabled: bool
    manually_edited: bool
    updated_at: str
    preview: str

    @property
    def number(self) -> int:
        """The chunk's place in its document as people count: the first is 1 (``ordinal`` 0)."""
        return self.ordinal + 1

    @property
    def parent_number(self) -> int | None:
        """A child's parent's ``number``."""
        return None if self.parent_ordinal is None else self.parent_ordinal + 1


class ChunkDocumentInfo(ContractModel):
    document_id: EntityId
    title: str
    path: str
    #: Enabled chunks that take part in retrieval (never parents).
    retrievable_chunks: int
    total_chunks: int
    edited_chunks: int
    disabled_chunks: int
    #: Chunks deleted by hand (remembered, so a rebuild does not bring them back).
    deleted_chunks: int = 0
    #: Edits of the person's that the file's new text replaced, kept until dismissed.
    replaced_edits: int = 0


#: Most replaced edits a document keeps (the oldest go first).
MAX_REPLACED_EDITS = 50


class ReplacedEdit(ContractModel):
    """A person's edit of a chunk that a changed file's new text replaced (a re-sync, or a
    rebuild told to discard what it cannot keep): kept so it is never lost silently."""

    chunk_id: EntityId
    content: str = Field(max_length=MAX_CHUNK_CONTENT_CHARACTERS)
    replaced_at: str


class ChunksListResponse(ContractModel):
    chunks: list[ChunkSummary]
    #: Chunks matching the search and role filter, over all pages.
    total: int
    next_cursor: str | None
    document: ChunkDocumentInfo
    #: The document's replaced edits, oldest first.
    replaced: list[ReplacedEdit] = Field(default_factory=list, max_length=MAX_REPLACED_EDITS)


class ReplacedDismissRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId


class ReplacedDismissResponse(ContractModel):
    dismissed: int
    document: ChunkDocumentInfo


class ChunkRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId
    chunk_id: EntityId


class ChunkDetail(ContractModel):
    chunk: ChunkSummary
    content: str
    #: The children of a parent, or the siblings' parent: what a disable or delete affects.
    children: int


class ChunkUpdateRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId
    chunk_id: EntityId
    #: New content (marked as a manual edit); at least one of content and enabled is given.
    content: str | None = Field(None, max_length=MAX_CHUNK_CONTENT_CHARACTERS)
    enabled: bool | None = None

    @model_validator(mode="after")
    def _something(self) -> ChunkUpdateRequest:
        if self.content is None and self.enabled is None:
            raise ValueError("give new content, a new enabled state, or both")
        if self.content is not None and not self.content.strip():
            raise ValueError("content must not be empty: disable or delete the chunk instead")
        return self


VectorFollowUp = Literal["queued", "not_needed", "no_model", "waiting_for_index", "incompatible"]


class ChunkUpdateResponse(ContractModel):
    chunk: ChunkSummary
    #: What happens to the chunk's vector: re-embedded by ``vector_task_id`` (queued), nothing
    #: to do, no embedding model configured, or the index needs a first build or a rebuild.
    vector: VectorFollowUp
    vector_task_id: EntityId | None
    document: ChunkDocumentInfo


class ChunkDeleteResponse(ContractModel):
    chunk_id: EntityId
    #: Children of a deleted parent that now stand alone (they keep their text and indexes).
    detached_children: int
    document: ChunkDocumentInfo
