"""Chunking: parsed sections → chunk drafts with stable ids and canonical index text."""

from __future__ import annotations

from goodbuddy_kb.main_process.chunking.chunker import chunk_document
from goodbuddy_kb.main_process.chunking.drafts import ChunkDraft

__all__ = ["ChunkDraft", "chunk_document"]
