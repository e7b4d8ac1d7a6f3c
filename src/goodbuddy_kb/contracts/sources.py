"""Contracts of sources, documents, their staged statuses and the library summary."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId
from goodbuddy_kb.contracts.limits import MAX_CHUNKS_PER_PAGE, MAX_LIST_OFFSET
from goodbuddy_kb.contracts.messages import code_fields
from goodbuddy_kb.contracts.paths import attachment_name, message_of

SourceKind = Literal["file", "folder", "web"]
SourceState = Literal["ok", "unavailable", "overflow"]
ParseStatus = Literal["pending", "running", "done", "failed"]
#: empty = parsed, but it holds no retrievable chunk ("no retrievable content").
FulltextStatus = Literal["pending", "done", "failed", "empty"]
VectorStatus = Literal["disabled", "pending", "running", "done", "failed", "incompatible"]
GraphStatus = Literal["disabled", "on_demand", "pending", "running", "done", "failed"]

#: Most files one folder source syncs (PRD §8.5).
MAX_FILES_PER_SOURCE = 2_000
#: Longest path or URL a source may name.
MAX_LOCATION_CHARACTERS = 4_096

Glob = Annotated[str, Field(min_length=1, max_length=200)]


def _location(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError("must not contain control characters (such as NUL)")
    return value


#: A folder or file path, or an http(s) URL: not blank, no control characters.
Location = Annotated[
    str, Field(min_length=1, max_length=MAX_LOCATION_CHARACTERS), AfterValidator(_location)
]


class Source(ContractModel):
    id: EntityId
    library_id: EntityId
    kind: SourceKind
    location: str
    include: list[str]
    exclude: list[str]
    watch: bool
    state: SourceState
    state_reason: str | None
    last_synced_at: str | None
    document_count: int
    file_count: int | None = None
    state_reason_code: str | None = None
    state_reason_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("state_reason")


class SourceAddRequest(ContractModel):
    library_id: EntityId
    kind: SourceKind
    location: Location
    include: list[Glob] = Field(default_factory=list, max_length=50)
    exclude: list[Glob] = Field(default_factory=list, max_length=50)
    #: Watch a folder for changes; on by default for folders, ignored for files and pages.
    watch: bool | None = None
    #: Start a sync task right away.
    sync: bool = True


class SourceAddResponse(ContractModel):
    source: Source
    task_id: EntityId | None


class SourceListRequest(ContractModel):
    library_id: EntityId


class SourceListResponse(ContractModel):
    sources: list[Source]


class SourceRemoveRequest(ContractModel):
    library_id: EntityId
    source_id: EntityId


class SourceRemoveResponse(ContractModel):
    source_id: EntityId
    removed_documents: int


class DocumentRemoveRequest(ContractModel):
    """Remove one document from its library (a file that cannot be read, say). A file or page
    added on its own goes with its source; a folder's file is left out of the folder from now
    on (its path joins the source's exclusions). The file itself is never touched."""

    library_id: EntityId
    document_id: EntityId


class DocumentRemoveResponse(ContractModel):
    document_id: EntityId
    #: The exclusion the folder source gained (None when the document's source went with it).
    excluded: str | None


class SourceSyncRequest(ContractModel):
    library_id: EntityId
    #: One source, or every source of the library when omitted.
    source_id: EntityId | None = None


class SourceSyncResponse(ContractModel):
    task_ids: list[EntityId]


class SourceWatchRequest(ContractModel):
    library_id: EntityId
    source_id: EntityId
    watch: bool


class SourceWatchResponse(ContractModel):
    source: Source


class DocumentStatus(ContractModel):
    parse: ParseStatus
    fulltext: FulltextStatus
    vector: VectorStatus
    graph: GraphStatus


OcrStatus = Literal["pending", "running", "done", "failed", "off"]


class DocumentOcr(ContractModel):
    """The OCR stage of a scanned PDF or an image: its status, and once done, the note a user
    reads ("text from OCR, mean confidence 0.93")."""

    status: OcrStatus
    #: Why OCR failed, or (``off``) that the library has OCR switched off.
    reason: str | None = None
    reason_code: str | None = None
    reason_params: dict[str, str] = Field(default_factory=dict)
    #: Pages whose text came from OCR (a PDF's text-layer pages are not counted).
    pages: int = 0
    #: Mean recognition confidence of the recognised lines, 0–1.
    mean_confidence: float | None = None
    #: Lines below the confidence floor: kept searchable, marked in their chunks.
    low_confidence_lines: int = 0
    #: Pages not recognised: past the page cap or the time budget.
    skipped_pages: int = 0
    #: Why pages were left out (the page cap, the time budget).
    skip_reason: str | None = None
    skip_reason_code: str | None = None
    skip_reason_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("reason", "skip_reason")


class Document(ContractModel):
    id: EntityId
    library_id: EntityId
    source_id: EntityId
    path: str
    title: str
    media_type: str | None
    size_bytes: int | None
    status: DocumentStatus
    error: str | None
    chunk_count: int
    updated_at: str
    #: The last re-read (sync or rebuild) failed for this reason; the previous generation still
    #: serves and the next sync or rebuild tries again.
    retryable_error: str | None = None
    #: Chunks holding a manual edit (a re-sync of a changed file may overwrite them).
    edited_chunks: int = 0
    #: Chunks switched off by hand: kept, never searched (``chunk_count`` counts the others).
    disabled_chunks: int = 0
    #: Chunks deleted by hand, remembered so a rebuild or re-sync does not bring them back.
    deleted_chunks: int = 0
    #: Edits of the person's that the file's new text replaced (kept until dismissed).
    replaced_edits: int = 0
    #: A library rebuild skipped it to keep that manual work: its chunks were made with
    #: earlier chunking settings (until a sync or a rebuild that discards the work).
    kept_old_chunks: bool = False
    #: Entities and relations the graph found in the document (evidence in its chunks).
    graph_entities: int = 0
    graph_relations: int = 0
    error_code: str | None = None
    error_params: dict[str, str] = Field(default_factory=dict)
    retryable_error_code: str | None = None
    retryable_error_params: dict[str, str] = Field(default_factory=dict)
    #: Why the document's graph extraction failed (status.graph "failed"); its full text and
    #: vectors are unaffected.
    graph_error: str | None = None
    graph_error_code: str | None = None
    graph_error_params: dict[str, str] = Field(default_factory=dict)
    #: What the parser wants a person to know about a document it read (hidden sheets skipped…).
    note: str | None = None
    note_code: str | None = None
    note_params: dict[str, str] = Field(default_factory=dict)
    fill_codes: ClassVar[Any] = code_fields("error", "retryable_error", "graph_error", "note")

    @property
    def message_path(self) -> str | None:
        """For an e-mail attachment's document, the path of the message it came with."""
        return message_of(self.path)

    @property
    def attachment_name(self) -> str:
        """An e-mail attachment's file name (the path for any other document)."""
        return attachment_name(self.path)

    #: Present for documents that need OCR (scanned PDF pages, images).
    ocr: DocumentOcr | None = None


DocumentFilter = Literal["all", "failed", "vector_missing"]


class DocumentListRequest(ContractModel):
    library_id: EntityId
    offset: int = Field(0, ge=0, le=MAX_LIST_OFFSET)
    limit: int = Field(100, ge=1, le=MAX_CHUNKS_PER_PAGE)
    filter: DocumentFilter = "all"


class LibrarySummary(ContractModel):
    """Counts a user can trust: never "ready" merely because nothing says failed (PRD §7.6)."""

    documents: int
    fulltext_usable: int
    vectorised: int
    failed: int
    pending: int
    no_retrievable_content: int
    settings_pending_rebuild: bool
    #: Documents a rebuild skipped to keep their manual chunk work (on earlier chunking).
    kept_old_chunks: int = Field(0, ge=0)
    #: Documents whose vectors a person cancelled before they were reached (not among
    #: ``failed``: nothing failed; the next vectorisation, a sync, continues them).
    vector_cancelled: int = Field(0, ge=0)
    #: Of ``failed``: documents whose last re-read failed while their previous version is still
    #: searched (counted "usable" and "failed" at once, unexplained; a helper's try).
    failed_serving_previous: int = Field(0, ge=0)
    #: Files of the library's folders past the per-source limit (``MAX_FILES_PER_SOURCE``)
    #: and not imported: said beside the count (it read "2000 documents" alone, the 709 others
    #: only in the sources table; a helper's try).
    not_imported: int = Field(0, ge=0)
    #: Documents whose vectors were made by another model than the configured one: not
    #: searched semantically until the vectors are rebuilt (the count line read "0 vectorised,
    #: 0 failed, 0 pending" beside 40 rows saying "incompatible"; a helper's try).
    waiting_vector_rebuild: int = Field(0, ge=0)


class DocumentListResponse(ContractModel):
    documents: list[Document]
    total: int
    summary: LibrarySummary
