"""Contracts of `knowledge:document:rebuild`, `knowledge:library:rebuild` and
`knowledge:rebuild:preview` (PRD §8.4, §8.5, §10).

Both rebuilds start a background task of kind ``rebuild``; progress, cancel and history go
through the task methods like any other task. A person's chunk work (edits, disabled and
deleted chunks) is never lost silently: the preview says how much of it each document holds,
and a rebuild carries it over where the new chunking keeps the chunk's text (or, for a disabled
chunk, keeps its text inside one new chunk that it makes up most of). What it cannot carry over
is handled by the request's ``manual_work`` choice: ``skip`` (the default) leaves such a
document as it is, ``discard`` rebuilds it too and drops that work (what can be carried over
still is). The task's summary reports both.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId

ManualWorkChoice = Literal["skip", "discard"]
#: Documents a preview lists by name (the rest are counted in ``more_documents``), and skipped
#: documents a task summary names.
MAX_LISTED_DOCUMENTS = 200


class DocumentRebuildRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId
    manual_work: ManualWorkChoice = "skip"


class LibraryRebuildRequest(ContractModel):
    library_id: EntityId
    manual_work: ManualWorkChoice = "skip"


class RebuildResponse(ContractModel):
    task_id: EntityId


class ManualWorkCounts(ContractModel):
    """Chunks a person edited, disabled or deleted."""

    edited: int = Field(0, ge=0)
    disabled: int = Field(0, ge=0)
    deleted: int = Field(0, ge=0)

    @property
    def total(self) -> int:
        return self.edited + self.disabled + self.deleted

    def plus(self, other: ManualWorkCounts) -> ManualWorkCounts:
        return ManualWorkCounts(
            edited=self.edited + other.edited,
            disabled=self.disabled + other.disabled,
            deleted=self.deleted + other.deleted,
        )


class RebuildPreviewRequest(ContractModel):
    """The whole library, or only ``document_id``."""

    library_id: EntityId
    document_id: EntityId | None = None


class DocumentManualWork(ContractModel):
    document_id: EntityId
    path: str
    counts: ManualWorkCounts


class RebuildPreviewResponse(ContractModel):
    """The documents holding manual chunk work a rebuild could discard (path order)."""

    documents: list[DocumentManualWork] = Field(max_length=MAX_LISTED_DOCUMENTS)
    #: Documents with manual work beyond the listed ones.
    more_documents: int = Field(0, ge=0)
    #: Every document's counts added up (listed or not).
    total: ManualWorkCounts = Field(default_factory=ManualWorkCounts)


class ManualWorkOutcome(ContractModel):
    """What a rebuild did with manual chunk work (a task summary's part)."""

    choice: ManualWorkChoice
    #: Kept on the new chunks (same text, or a disabled text inside one new chunk).
    carried: ManualWorkCounts = Field(default_factory=ManualWorkCounts)
    #: Dropped because the request said ``discard`` (a sync: the file's own text changed).
    discarded: ManualWorkCounts = Field(default_factory=ManualWorkCounts)
    #: The documents whose work was dropped (the first ``MAX_LISTED_DOCUMENTS``).
    discarded_paths: list[str] = Field(default_factory=list, max_length=MAX_LISTED_DOCUMENTS)
    #: Left as they were (``skip``) because the new chunking could not carry their work over.
    skipped_documents: int = Field(0, ge=0)
    skipped_paths: list[str] = Field(default_factory=list, max_length=MAX_LISTED_DOCUMENTS)
    #: The manual work in the skipped documents that a rebuild would have dropped.
    kept: ManualWorkCounts = Field(default_factory=ManualWorkCounts)
