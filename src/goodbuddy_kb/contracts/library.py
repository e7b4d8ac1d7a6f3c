"""Contracts of the `knowledge:library:*` and `knowledge:settings:*` methods."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.limits import MAX_LIBRARY_NAME_CHARACTERS
from goodbuddy_kb.contracts.settings import (
    KnowledgeChunkingSettings,
    KnowledgeRetrievalSettings,
)


def _bounded(value: object) -> object:
    # Whitespace may be trimmed, so the raw bound is looser than the limit; past it the value
    # is refused with the limit users know, before any work on a megabyte of text.
    if isinstance(value, str) and len(value) > MAX_LIBRARY_NAME_CHARACTERS * 4:
        raise ValueError(f"must be at most {MAX_LIBRARY_NAME_CHARACTERS} characters")
    return value


def _clean_name(value: str) -> str:
    value = unicodedata.normalize("NFC", value).strip()
    if not value:
        raise ValueError("must not be empty")
    if any(unicodedata.category(ch) in {"Cc", "Cf"} for ch in value):
        raise ValueError("must not contain control characters")
    if len(value) > MAX_LIBRARY_NAME_CHARACTERS:
        raise ValueError(f"must be at most {MAX_LIBRARY_NAME_CHARACTERS} characters")
    return value


#: Longest per-library assistant instructions, in characters.
MAX_ASSISTANT_INSTRUCTIONS_CHARACTERS = 2_000

#: A library name: trimmed, 1–100 characters, printable.
LibraryName = Annotated[str, BeforeValidator(_bounded), AfterValidator(_clean_name)]
#: An opaque id minted by the backend (32 lowercase hex digits).
EntityId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[0-9a-f]{32}$")]


class Library(ContractModel):
    id: EntityId
    name: str
    created_at: str
    updated_at: str
    settings_pending_rebuild: bool = False
    #: Documents a rebuild skipped to keep their manual chunk work: they keep chunks made with
    #: earlier chunking settings (so the library still waits for a rebuild that discards it).
    kept_old_chunks: int = Field(0, ge=0)
    #: "Available to external AI tools" (the MCP server); off until the user switches it on.
    external_access: bool = False


class LibraryCreateRequest(ContractModel):
    name: LibraryName


class LibraryCreateResponse(ContractModel):
    library: Library


class LibraryListRequest(ContractModel):
    pass


class LibraryListResponse(ContractModel):
    libraries: list[Library]


class LibraryRenameRequest(ContractModel):
    library_id: EntityId
    name: LibraryName


class LibraryRenameResponse(ContractModel):
    library: Library


class LibraryDeleteRequest(ContractModel):
    library_id: EntityId


class LibraryDeleteResponse(ContractModel):
    library_id: EntityId
    name: str


class SettingsGetRequest(ContractModel):
    library_id: EntityId


class LibrarySettings(ContractModel):
    library_id: EntityId
    retrieval: KnowledgeRetrievalSettings
    chunking: KnowledgeChunkingSettings
    #: Put a bounded title/heading/page prefix in front of each chunk's index text (US-F4).
    contextual_indexing: bool
    settings_pending_rebuild: bool
    #: As in :class:`Library`: documents kept on earlier chunking for their manual work.
    kept_old_chunks: int = Field(0, ge=0)
    external_access: bool = False
    #: Recognise text in scanned PDF pages and images, locally (on by default).
    ocr_enabled: bool = True
    #: What the chat's assistant is told when this library is in its scope ("answer in
    #: Chinese, as the HR helpdesk"); not a setting that needs a rebuild.
    assistant_instructions: str = Field("", max_length=MAX_ASSISTANT_INSTRUCTIONS_CHARACTERS)


class SettingsUpdateRequest(ContractModel):
    """Replace one or both settings objects; omitted ones stay as stored."""

    library_id: EntityId
    retrieval: KnowledgeRetrievalSettings | None = None
    chunking: KnowledgeChunkingSettings | None = None
    contextual_indexing: bool | None = None
    external_access: bool | None = None
    ocr_enabled: bool | None = None
    assistant_instructions: str | None = Field(
        None, max_length=MAX_ASSISTANT_INSTRUCTIONS_CHARACTERS
    )
