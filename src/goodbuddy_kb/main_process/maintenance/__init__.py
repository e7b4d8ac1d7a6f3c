"""Chunk maintenance (PRD §8.4): list, view, edit, enable/disable and delete one document's
chunks with every index kept consistent, and re-embed what an edit or a re-enable left without
a vector."""

from __future__ import annotations

from goodbuddy_kb.main_process.maintenance.edits import (
    ChunkChange,
    delete_chunk,
    owned_chunk,
    update_chunk,
)
from goodbuddy_kb.main_process.maintenance.vectors import (
    VectorOutcome,
    follow_up,
    vectorise_document,
)

__all__ = [
    "ChunkChange",
    "VectorOutcome",
    "delete_chunk",
    "follow_up",
    "owned_chunk",
    "update_chunk",
    "vectorise_document",
]
