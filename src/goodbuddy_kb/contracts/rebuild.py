"""Contracts of `knowledge:document:rebuild` and `knowledge:library:rebuild` (PRD §8.5, §10).

Both start a background task of kind ``rebuild``; progress, cancel and history go through the
task methods like any other task.
"""

from __future__ import annotations

from goodbuddy_kb.contracts.base import ContractModel
from goodbuddy_kb.contracts.library import EntityId


class DocumentRebuildRequest(ContractModel):
    library_id: EntityId
    document_id: EntityId


class LibraryRebuildRequest(ContractModel):
    library_id: EntityId


class RebuildResponse(ContractModel):
    task_id: EntityId
