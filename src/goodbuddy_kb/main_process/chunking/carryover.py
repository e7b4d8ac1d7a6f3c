"""Which of a person's chunk work a new chunking of the same document keeps (PRD §8.4, §8.5).

A pure function over the new drafts and the old generation's manual state:

- an **edit** is kept when a new chunk has the edited chunk's stable id (same source text,
  role and occurrence): the new chunk takes the edited content;
- a **disabled** chunk is kept when a new chunk has its id, or when its text lies wholly inside
  one new retrievable chunk and makes up most of it (``HOLDER_SHARE``, with any other disabled
  text inside it): that chunk is disabled, so the text stays out of every channel;
- a **deleted** chunk is kept when a new chunk has its id or exactly its text (that chunk is
  left out; a left-out parent's children become standalone, as a deletion does).

Work that is not kept is *lost* when its text would come back (a new chunk contains it, or lies
inside it); disabled or deleted text that appears nowhere in the new chunking is simply gone,
and so is its record. The caller decides what a loss means: a rebuild skips the document unless
told to discard, a re-sync of a changed file accepts it (the file's own text changed).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher

from goodbuddy_kb.main_process.chunking.drafts import ChunkDraft, canonical_index_text, checksum

_SPACE = re.compile(r"\s+")


def comparable(text: str) -> str:
    """Text as compared across chunkings: NFC, runs of white space as one space, trimmed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


@dataclass(frozen=True)
class ManualChunk:
    """A chunk of the serving generation that a person disabled or deleted."""

    id: str
    role: str
    content: str


@dataclass(frozen=True)
class ManualState:
    edited: dict[str, str] = field(default_factory=dict)  # chunk id → edited content
    disabled: tuple[ManualChunk, ...] = ()
    deleted: tuple[ManualChunk, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.edited or self.disabled or self.deleted)


@dataclass(frozen=True)
class Tally:
    edited: int = 0
    disabled: int = 0
    deleted: int = 0

    @property
    def total(self) -> int:
        return self.edited + self.disabled + self.deleted


def plus(a: Tally, b: Tally) -> Tally:
    return Tally(a.edited + b.edited, a.disabled + b.disabled, a.deleted + b.deleted)


@dataclass(frozen=True)
class CarryOver:
    #: The drafts as they are to be stored: edits applied, deleted ones left out, disabled
    #: ones marked.
    drafts: list[ChunkDraft]
    #: Deletions that still hold (to be remembered for the next chunking), under their new ids.
    deletions: list[ManualChunk]
    carried: Tally
    lost: Tally


def _edited(draft: ChunkDraft, content: str) -> ChunkDraft:
    index_text = canonical_index_text(content, draft.prefix)
    return replace(draft, content=content, index_text=index_text, checksum=checksum(index_text))


#: Each draft's content as compared (computed once per carry-over), by draft id.
Texts = dict[str, str]


#: How alike (difflib's ratio) a new chunk and a disabled or deleted one must be for the new one
#: to count as its text, reworded in the file ("6 小时" → "4 小时"): the person's "off" or
#: "deleted" does not reach it, and that is reported, not left silent.
REWORDED = 0.6


def _resurfaces(text: str, drafts: list[ChunkDraft], texts: Texts) -> bool:
    """Would this text be found again: a new chunk contains it, lies inside it, or is it
    reworded (a file's edit turned a disabled chunk back on without a word)."""
    if not text:
        return False
    for draft in drafts:
        other = texts[draft.id]
        if other and (text in other or other in text):
            return True
    for draft in drafts:
        other = texts[draft.id]
        if not other:
            continue
        matcher = SequenceMatcher(None, text, other, autojunk=False)
        if (
            matcher.real_quick_ratio() >= REWORDED
            and matcher.quick_ratio() >= REWORDED
            and matcher.ratio() >= REWORDED
        ):
            return True
    return False


def _drop(drafts: list[ChunkDraft], gone: ChunkDraft) -> list[ChunkDraft]:
    """Leave ``gone`` out; its children become standalone chunks (as a deletion does)."""
    out = []
    for draft in drafts:
        if draft.id == gone.id:
            continue
        detached = draft.parent_id == gone.id
        out.append(replace(draft, role="standalone", parent_id=None) if detached else draft)
    return out


def _apply_deletions(
    drafts: list[ChunkDraft], deleted: tuple[ManualChunk, ...], texts: Texts
) -> tuple[list[ChunkDraft], list[ManualChunk], int, int]:
    kept: list[ManualChunk] = []
    lost = 0
    for gone in deleted:
        text = comparable(gone.content)
        match = next((d for d in drafts if d.id == gone.id), None) or next(
            (d for d in drafts if text and texts[d.id] == text), None
        )
        if match is not None:
            drafts = _drop(drafts, match)
            kept.append(ManualChunk(match.id, match.role, match.content))
        elif _resurfaces(text, drafts, texts):
            lost += 1
    return drafts, kept, len(kept), lost


#: A new chunk holding disabled text is disabled only when that text makes up at least this
#: share of it: one switched-off passage inside a chunk several times its size would take the
#: rest out of search too (after a coarser chunking, a whole document). Below it the disabled
#: state is not carried over, and the rebuild says so (it skips the document by default).
HOLDER_SHARE = 0.7


def _apply_disabled(
    drafts: list[ChunkDraft], disabled: tuple[ManualChunk, ...], texts: Texts
) -> tuple[list[ChunkDraft], int, int]:
    off: set[str] = set()
    carried = lost = 0
    ids = {d.id for d in drafts}
    held: dict[str, list[str]] = {}  # holder id → the disabled texts inside it
    for chunk in disabled:
        text = comparable(chunk.content)
        if chunk.id in ids:
            off.add(chunk.id)
            carried += 1
            continue
        holder = next(
            (d for d in drafts if d.role != "parent" and text and text in texts[d.id]),
            None,
        )
        if holder is not None:
            held.setdefault(holder.id, []).append(text)
        elif _resurfaces(text, drafts, texts):
            lost += 1
    for holder_id, inside in held.items():
        if sum(len(t) for t in inside) >= HOLDER_SHARE * len(texts[holder_id]):
            off.add(holder_id)
            carried += len(inside)
        else:
            lost += len(inside)
    return [replace(d, enabled=False) if d.id in off else d for d in drafts], carried, lost


def carry_over(state: ManualState, drafts: list[ChunkDraft]) -> CarryOver:
    """The new drafts with as much of ``state`` as they can keep, and what could not be kept."""
    if state.empty:
        return CarryOver(list(drafts), [], Tally(), Tally())
    ids = {d.id for d in drafts}
    edits_kept = sum(1 for cid in state.edited if cid in ids)
    with_edits = [_edited(d, state.edited[d.id]) if d.id in state.edited else d for d in drafts]
    texts = {d.id: comparable(d.content) for d in with_edits}
    remaining, deletions, deletes_kept, deletes_lost = _apply_deletions(
        with_edits, state.deleted, texts
    )
    final, disabled_kept, disabled_lost = _apply_disabled(remaining, state.disabled, texts)
    return CarryOver(
        final,
        deletions,
        Tally(edits_kept, disabled_kept, deletes_kept),
        Tally(len(state.edited) - edits_kept, disabled_lost, deletes_lost),
    )
