"""The three chunking modes (PRD §8.1): fixed, structure, parent-child.

* fixed — the document's body text as one stream, cut by length at natural boundaries.
* structure — sections stay together under their heading path; long sections are cut with the
  fixed rules; tables are cut between rows, every piece repeating the header rows.
* parent-child — parents of up to ``parentCharacters`` (consecutive sibling heading sections
  packed together, ``parents.py``) are context only; each is cut into structure children of
  ``childCharacters``, which are the retrievable chunks and keep the parent's id.

The pieces themselves are cut in ``pieces.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from goodbuddy_kb.contracts.settings import MAX_OVERLAP_SHARE, KnowledgeChunkingSettings
from goodbuddy_kb.main_process.chunking.drafts import (
    ChunkDraft,
    ChunkRole,
    Piece,
    canonical_index_text,
    checksum,
    context_prefix,
    stable_id,
)
from goodbuddy_kb.main_process.chunking.parents import parent_pieces
from goodbuddy_kb.main_process.chunking.pieces import fixed_pieces, structure_pieces
from goodbuddy_kb.main_process.parsing.model import ParsedDocument, Section


def _body(doc: ParsedDocument) -> list[Section]:
    return [s for s in doc.sections if s.block_type != "heading" and s.text.strip()]


def chunk_document(
    doc: ParsedDocument,
    document_id: str,
    settings: KnowledgeChunkingSettings,
    contextual: bool = False,
) -> list[ChunkDraft]:
    """Cut a parsed document into chunk drafts: identical input gives byte-identical output."""
    body = _body(doc)
    if not body:
        return []
    target, overlap = settings.target_characters, settings.overlap_characters
    if settings.mode == "fixed":
        return _finish(
            doc, document_id, fixed_pieces(body, target, overlap), "standalone", contextual
        )
    if settings.mode == "structure":
        return _finish(
            doc, document_id, structure_pieces(body, target, overlap), "standalone", contextual
        )
    parents = parent_pieces(body, settings.parent_characters)
    child_overlap = min(overlap, int(settings.child_characters * MAX_OVERLAP_SHARE))
    for parent in parents:
        parent.children = structure_pieces(parent.parts, settings.child_characters, child_overlap)
    drafts = _finish(doc, document_id, parents, "parent", contextual)
    children: list[ChunkDraft] = []
    counts: Counter[str] = Counter()
    for parent_draft, parent in zip(drafts, parents, strict=True):
        children.extend(
            _drafts(
                doc,
                document_id,
                parent.children,
                "child",
                contextual,
                counts,
                len(children),
                parent_draft.id,
            )
        )
    return drafts + children


def _finish(
    doc: ParsedDocument, document_id: str, pieces: list[Piece], role: ChunkRole, contextual: bool
) -> list[ChunkDraft]:
    return list(_drafts(doc, document_id, pieces, role, contextual, Counter(), 0, None))


def _drafts(
    doc: ParsedDocument,
    document_id: str,
    pieces: Iterable[Piece],
    role: ChunkRole,
    contextual: bool,
    counts: Counter[str],
    first_ordinal: int,
    parent_id: str | None,
) -> Iterable[ChunkDraft]:
    for offset, piece in enumerate(pieces):
        occurrence = counts[piece.content]
        counts[piece.content] += 1
        prefix = context_prefix(doc.title, piece) if contextual else None
        index_text = canonical_index_text(piece.content, prefix)
        yield ChunkDraft(
            id=stable_id(document_id, role, piece.content, occurrence),
            ordinal=first_ordinal + offset,
            role=role,
            parent_id=parent_id,
            heading=piece.heading_path[-1] if piece.heading_path else None,
            heading_path=piece.heading_path,
            locator={**piece.locator, "message": doc.message} if doc.message else piece.locator,
            block_type=piece.block_type,
            content=piece.content,
            index_text=index_text,
            checksum=checksum(index_text),
        )
