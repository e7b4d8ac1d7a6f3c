"""The one candidate type that flows through every retrieval stage, with the diagnostics
each stage owes the workbench."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Candidate:
    chunk_id: str
    channel_ranks: dict[str, int] = field(default_factory=dict)
    vector_similarity: float | None = None
    #: the fused score (adaptive fusion or RRF)
    fused: float = 0.0
    pre_rank: int = 0
    relevance: float = 0.0
    features: dict[str, float] = field(default_factory=dict)
    #: similarity above the library's background in standard deviations (None: no vector channel)
    vector_z: float | None = None
    # loaded once the fused list is known
    document_id: str = ""
    library_id: str = ""
    source_id: str = ""
    ordinal: int = 0
    role: str = "standalone"
    parent_id: str | None = None
    content: str = ""
    index_text: str = ""
    heading_path: list[str] = field(default_factory=list)
    locator: dict[str, Any] = field(default_factory=dict)
    document_title: str = ""
    document_path: str = ""
    #: the chunk's text checksum (a citation keeps it, to tell an edit made since)
    checksum: str = ""
    #: candidates ranked lower with the same text (``distinct``), folded into this one
    same_text: list[Candidate] = field(default_factory=list)
    #: the full text's pick moved up on a stray share of the question's terms (``fusion.arbitrate``,
    #: ``ArbitrationStage``): its own fused score, which its relevance reads, not the one it took
    own_fused: float | None = None


def load(conn: sqlite3.Connection, candidates: Iterable[Candidate]) -> list[Candidate]:
    """Fill in chunk and document details; drops any that vanished meanwhile."""
    by_id = {c.chunk_id: c for c in candidates}
    if not by_id:
        return []
    marks = ",".join("?" for _ in by_id)
    rows = conn.execute(
        "SELECT c.id, c.document_id, c.library_id, c.ordinal, c.role, c.parent_chunk_id, c.content,"
        " c.index_text, c.heading_path, c.locator, c.checksum, d.title, d.relative_path, d.source_id"
        f" FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})"
        " AND c.enabled = 1 AND c.role != 'parent'",
        tuple(by_id),
    ).fetchall()
    loaded = []
    for r in rows:
        c = by_id[r["id"]]
        c.document_id, c.library_id, c.source_id = r["document_id"], r["library_id"], r["source_id"]
        c.ordinal, c.role, c.parent_id = r["ordinal"], r["role"], r["parent_chunk_id"]
        c.content, c.index_text = r["content"], r["index_text"]
        c.heading_path = list(json.loads(r["heading_path"]))
        c.locator = dict(json.loads(r["locator"]))
        c.document_title, c.document_path = r["title"], r["relative_path"]
        c.checksum = r["checksum"]
        loaded.append(c)
    order = {cid: i for i, cid in enumerate(by_id)}
    loaded.sort(key=lambda c: order[c.chunk_id])
    return loaded


def distinct(ranked: Iterable[Candidate], limit: int) -> list[Candidate]:
    """The first ``limit`` candidates whose texts differ (whitespace aside), in rank order; a
    candidate repeating a kept one's text (the same file imported at two paths, a paragraph
    copied into two notes) is folded into it (``same_text``, once per document) instead of
    taking a place."""
    kept: dict[str, Candidate] = {}
    for c in ranked:
        key = " ".join(c.content.split())
        first = kept.get(key)
        if first is not None:
            # named once per other document (a text repeated within one document is one passage)
            documents = {first.document_id, *(d.document_id for d in first.same_text)}
            if c.document_id not in documents:
                first.same_text.append(c)
        elif len(kept) < limit:
            kept[key] = c
    return list(kept.values())
