"""The chunk a chunker produces, with its stable id, canonical index text and checksum."""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from goodbuddy_kb.main_process.parsing.model import Section

ChunkRole = Literal["standalone", "parent", "child"]

#: Longest contextual prefix put in front of a chunk's index text.
MAX_CONTEXT_PREFIX = 240


@dataclass(frozen=True)
class ChunkDraft:
    id: str
    ordinal: int
    role: ChunkRole
    parent_id: str | None
    heading: str | None
    heading_path: tuple[str, ...]
    locator: dict[str, Any]
    block_type: str
    content: str
    index_text: str
    checksum: str
    #: False for a chunk that keeps a person's "disabled" from the generation it replaces.
    enabled: bool = True

    @property
    def prefix(self) -> str | None:
        """The contextual prefix in front of the content in the index text, if any."""
        body = unicodedata.normalize("NFC", self.content)
        if self.index_text == body or not self.index_text.endswith("\n" + body):
            return None
        return self.index_text[: -len(body) - 1]


@dataclass
class Piece:
    """A chunk before ids: content plus where it came from."""

    content: str
    heading_path: tuple[str, ...]
    locator: dict[str, Any]
    block_type: str
    #: The sections (or section fragments) it was built from; parents cut their children from these.
    parts: list[Section] = field(default_factory=list)
    children: list[Piece] = field(default_factory=list)


def context_prefix(title: str, piece: Piece) -> str:
    """Bounded, deterministic context: document title, heading path, page, block type."""
    parts = [title.strip()] if title.strip() else []
    if piece.heading_path:
        parts.append(" > ".join(piece.heading_path))
    page = piece.locator.get("page")
    if page is not None:
        parts.append(f"p.{page}")
    parts.append(piece.block_type)
    prefix = " · ".join(p for p in parts if p)
    if len(prefix) > MAX_CONTEXT_PREFIX:
        prefix = prefix[: MAX_CONTEXT_PREFIX - 1] + "…"
    return prefix


def canonical_index_text(content: str, prefix: str | None) -> str:
    """The one text full-text, CJK, vectors and the checksum are all computed from."""
    body = unicodedata.normalize("NFC", content)
    return f"{prefix}\n{body}" if prefix else body


def stored_prefixed_text(row: Any, content: str) -> str:
    """``content``'s index text with the contextual prefix of a stored chunk ``row`` (its
    document's ``title``, its ``heading_path``, ``locator`` and ``block_type`` columns)."""
    piece = Piece(
        content,
        tuple(json.loads(row["heading_path"] or "[]")),
        json.loads(row["locator"] or "{}"),
        row["block_type"] or "paragraph",
    )
    return canonical_index_text(content, context_prefix(row["title"] or "", piece))


def checksum(index_text: str) -> str:
    return hashlib.sha256(index_text.encode("utf-8")).hexdigest()


def stable_id(document_id: str, role: str, content: str, occurrence: int) -> str:
    """Same document, role and content (nth copy) → same id across re-syncs."""
    key = f"{document_id}\x1f{role}\x1f{occurrence}\x1f{content}".encode()
    return hashlib.sha256(key).hexdigest()[:32]
