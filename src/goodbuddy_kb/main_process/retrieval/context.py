"""Context assembly (PRD §8.3, US-F2, US-F3): the evidence a model would read.

* ``adjacentChunkCount`` 0–2 merges enabled chunks of the same document with consecutive
  ordinals around each hit (stopping at a gap); a child hit brings its parent instead.
* No chunk appears twice: a hit already inside an earlier group only adds its citation there.
* The budget is spent in relevance order; a group that does not fit first loses its neighbours,
  and the first one that still does not fit is cut at a safe boundary (a parent around its hit)
  and marked truncated; nothing after it is taken, and nothing taken is ever displaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from goodbuddy_kb.contracts.retrieval import Context, ContextGroup
from goodbuddy_kb.main_process.chunking.boundaries import find_cut
from goodbuddy_kb.main_process.retrieval.candidate import Candidate

#: The smallest remaining budget worth filling with a truncated piece.
MIN_PIECE = 200
MAX_OVERLAP_TRIM = 800


@dataclass(frozen=True)
class Unit:
    chunk_id: str
    ordinal: int
    content: str


class ContextSource(Protocol):
    def neighbours(self, document_id: str, ordinal: int, count: int) -> list[Unit]:
        """Enabled retrievable chunks of the document with ordinals in [o−count, o+count]."""

    def parent(self, parent_id: str) -> Unit | None: ...


@dataclass
class _Group:
    document_id: str
    library_id: str
    title: str
    kind: str
    units: dict[int, Unit] = field(default_factory=dict)
    hits: list[Candidate] = field(default_factory=list)
    parent_id: str | None = None
    relevance: float = 0.0


def join_trimmed(pieces: list[str]) -> str:
    """Concatenate consecutive chunks, dropping the text an overlap repeated."""
    out = ""
    for piece in pieces:
        if not out:
            out = piece
            continue
        limit = min(len(out), len(piece), MAX_OVERLAP_TRIM)
        overlap = next((k for k in range(limit, 19, -1) if out.endswith(piece[:k])), 0)
        out += ("" if overlap else "\n") + piece[overlap:]
    return out


def _contiguous(units: list[Unit], around: int) -> list[Unit]:
    by_ordinal = {u.ordinal: u for u in units}
    if around not in by_ordinal:
        return []
    lo = hi = around
    while lo - 1 in by_ordinal:
        lo -= 1
    while hi + 1 in by_ordinal:
        hi += 1
    return [by_ordinal[o] for o in range(lo, hi + 1)]


def _group_for(groups: list[_Group], hit: Candidate) -> _Group | None:
    for g in groups:
        if (
            g.kind == "chunks"
            and g.document_id == hit.document_id
            and any(u.chunk_id == hit.chunk_id for u in g.units.values())
        ):
            return g
    return None


def build_groups(hits: list[Candidate], source: ContextSource, adjacent: int) -> list[_Group]:
    groups: list[_Group] = []
    used: set[str] = set()
    for hit in hits:
        if hit.role == "child" and hit.parent_id:
            existing = next((g for g in groups if g.parent_id == hit.parent_id), None)
            if existing is not None:
                existing.hits.append(hit)
                continue
            parent = source.parent(hit.parent_id)
            if parent is not None:
                g = _Group(
                    hit.document_id,
                    hit.library_id,
                    hit.document_title,
                    "parent",
                    {0: parent},
                    [hit],
                    hit.parent_id,
                    hit.relevance,
                )
                groups.append(g)
                used.add(parent.chunk_id)
                continue
        if hit.chunk_id in used:
            holder = _group_for(groups, hit)
            if holder is not None:
                holder.hits.append(hit)
                continue
        span = [
            u
            for u in source.neighbours(hit.document_id, hit.ordinal, adjacent)
            if u.chunk_id not in used or u.chunk_id == hit.chunk_id
        ]
        if not any(u.chunk_id == hit.chunk_id for u in span):
            span.append(Unit(hit.chunk_id, hit.ordinal, hit.content))
        run = _contiguous(span, hit.ordinal)
        used.update(u.chunk_id for u in run)
        ordinals = {u.ordinal for u in run}
        merge = next(
            (
                g
                for g in groups
                if g.kind == "chunks"
                and g.document_id == hit.document_id
                and (min(g.units) - 1 <= max(ordinals) and min(ordinals) <= max(g.units) + 1)
            ),
            None,
        )
        if merge is not None:
            merge.units.update({u.ordinal: u for u in run})
            merge.hits.append(hit)
        else:
            groups.append(
                _Group(
                    hit.document_id,
                    hit.library_id,
                    hit.document_title,
                    "chunks",
                    {u.ordinal: u for u in run},
                    [hit],
                    None,
                    hit.relevance,
                )
            )
    return groups


def _window(text: str, anchor: str, size: int) -> str:
    """At most ``size`` characters of ``text`` around ``anchor``, cut at safe boundaries."""
    centre = max(0, text.find(anchor[:200]))
    start = max(0, centre - (size - min(len(anchor), size)) // 2)
    if start > 0:
        start = find_cut(text, max(0, start - 80), 80) if start >= 80 else start
    end = find_cut(text, start, size)
    return text[start:end]


def _finish(g: _Group, text: str, truncated: bool, units: list[Unit]) -> ContextGroup:
    locators: list[dict[str, Any]] = [h.locator for h in g.hits]
    return ContextGroup(
        document_id=g.document_id,
        library_id=g.library_id,
        document_title=g.title,
        chunk_ids=[u.chunk_id for u in units],
        hit_chunk_ids=[h.chunk_id for h in g.hits],
        locators=locators,
        text=text,
        character_count=len(text),
        kind="parent" if g.kind == "parent" else "chunks",
        truncated=truncated,
        relevance=g.relevance,
    )


def assemble(hits: list[Candidate], source: ContextSource, budget: int, adjacent: int) -> Context:
    groups = build_groups(hits, source, adjacent)
    remaining = budget
    taken: list[ContextGroup] = []
    truncated = False
    for g in groups:
        units = [g.units[o] for o in sorted(g.units)]
        text = join_trimmed([u.content for u in units])
        if len(text) <= remaining:
            taken.append(_finish(g, text, False, units))
            remaining -= len(text)
            continue
        truncated = True
        if g.kind == "chunks" and len(units) > len(g.hits):
            hit_ids = {h.chunk_id for h in g.hits}
            only_hits = [u for u in units if u.chunk_id in hit_ids]
            text = join_trimmed([u.content for u in only_hits])
            if len(text) <= remaining:
                taken.append(_finish(g, text, False, only_hits))
                remaining -= len(text)
                continue
            units = only_hits
        if remaining >= MIN_PIECE:
            anchor = g.hits[0].content
            piece = _window(text, anchor, remaining)
            taken.append(_finish(g, piece, True, units))
            remaining -= len(piece)
        break
    return Context(
        character_count=budget - remaining,
        budget=budget,
        truncated=truncated,
        groups=taken,
    )
