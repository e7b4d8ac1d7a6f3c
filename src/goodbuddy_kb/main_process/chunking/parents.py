"""Parents of the parent-child mode (PRD §8.1, US-E3): large pieces of context.

The document's headings form a tree. Consecutive sibling subtrees (sections under sibling
headings, with everything below them) are packed into one parent while it stays within the
parent target; a subtree larger than the target is packed again one level down, so a parent
never spans a higher-level heading than the siblings it groups. A heading's own text longer
than the target is cut with the structure rules. A parent's text names the sub-headings inside
it on their own lines, so the context a model reads keeps its structure; each child's text
stays a verbatim run of its parent's.
"""

from __future__ import annotations

from itertools import groupby

from goodbuddy_kb.main_process.chunking.drafts import Piece
from goodbuddy_kb.main_process.chunking.pieces import SEPARATOR, locator_of, structure_pieces
from goodbuddy_kb.main_process.parsing.model import Section


def _common(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    first = paths[0]
    size = len(first)
    for path in paths[1:]:
        size = min(size, len(path))
        while size and path[:size] != first[:size]:
            size -= 1
    return first[:size]


def render(sections: list[Section], depth: int) -> str:
    """The sections' texts; a heading below ``depth`` is written on its own line where it
    begins."""
    out: list[str] = []
    previous: tuple[str, ...] = sections[0].heading_path[:depth]
    for section in sections:
        path = section.heading_path
        if path != previous:
            shared = len(_common([path, previous]))
            out.extend(path[max(shared, depth) :])
        out.append(section.text.strip())
        previous = path
    return SEPARATOR.join(out)


def _piece(sections: list[Section]) -> Piece:
    common = _common([s.heading_path for s in sections])
    loc = locator_of(sections[0], sections[-1])
    if common:
        loc["headingPath"] = list(common)
    else:
        loc.pop("headingPath", None)
    content = render(sections, len(common))
    return Piece(content, common, loc, sections[0].block_type, list(sections))


def parent_pieces(sections: list[Section], target: int, depth: int = 0) -> list[Piece]:
    """Pack ``sections`` (all sharing their first ``depth`` headings) into parents."""
    pieces: list[Piece] = []
    current: list[Section] = []

    def flush() -> None:
        nonlocal current
        if current:
            pieces.append(_piece(current))
        current = []

    for key, run in groupby(
        sections, key=lambda s: s.heading_path[depth] if len(s.heading_path) > depth else None
    ):
        unit = list(run)
        if len(render(unit, depth)) > target:
            flush()
            if key is None:
                pieces.extend(structure_pieces(unit, target, 0))
            else:
                pieces.extend(parent_pieces(unit, target, depth + 1))
            continue
        if current and len(render(current + unit, depth)) > target:
            flush()
        current.extend(unit)
    flush()
    return pieces
