"""IPC handlers, one module per domain; importing this package registers them all."""

from __future__ import annotations

from goodbuddy_kb.main_process.handlers import (
    chat,
    chunks,
    conversations,
    document_remove,
    document_source,
    external,
    graph,
    graph_edit,
    libraries,
    models,
    rebuild,
    retrieval,
    sources,
    system,
    window,
)
from goodbuddy_kb.main_process.handlers.registry import REGISTRY, check_complete

__all__ = [
    "REGISTRY",
    "chat",
    "check_complete",
    "chunks",
    "conversations",
    "document_remove",
    "document_source",
    "external",
    "graph",
    "graph_edit",
    "libraries",
    "models",
    "rebuild",
    "retrieval",
    "sources",
    "system",
    "window",
]
