"""Pieces of the fixed and structure modes (PRD §8.1): text cut by length at natural
boundaries, sections kept together under their heading path, tables cut between rows with
their header repeated; every piece keeps its locator and the sections it came from."""

from __future__ import annotations

from dataclasses import replace
from itertools import groupby
from typing import Any

from goodbuddy_kb.main_process.chunking.boundaries import split_spans
from goodbuddy_kb.main_process.chunking.drafts import Piece
from goodbuddy_kb.main_process.parsing.model import Section

SEPARATOR = "\n\n"


def locator_of(first: Section, last: Section) -> dict[str, Any]:
    loc = first.locator.to_dict()
    end = last.locator
    if end.line_end is not None:
        loc["lineEnd"] = end.line_end
    if end.page is not None and end.page != first.locator.page:
        loc["pageEnd"] = end.page
    if end.slide is not None and end.slide != first.locator.slide:
        loc["slideEnd"] = end.slide
    if end.row_end is not None and end.sheet == first.locator.sheet:
        loc["rowEnd"] = end.row_end
    if first.heading_path:
        loc["headingPath"] = list(first.heading_path)
    return loc


def _row_at(section: Section, offset: int) -> int | None:
    """The sheet row of the body line at ``offset`` in a spreadsheet section (its first row
    for an offset in the header), or None for a section without row numbers."""
    if not section.row_numbers:
        return None
    line = section.text.count("\n", 0, max(offset, 0)) - section.header_lines
    return section.row_numbers[min(max(line, 0), len(section.row_numbers) - 1)]


def _heading_path(
    sections: list[Section], starts: list[int], first: int, last: int, a: int, b: int
) -> tuple[str, ...]:
    """The heading path of a span ``a:b`` of the joined text over sections ``first..last``: the
    path of the section holding at least half of its characters, else the part of the path all
    of them share (a piece holding articles 1-5 is not "article 1", and one that is mostly
    chapter 2 is not chapter 1 for the end of chapter 1 it begins with)."""
    if first == last:
        return sections[first].heading_path
    held = [
        max(0, min(b, starts[i] + len(sections[i].text)) - max(a, starts[i]))
        for i in range(first, last + 1)
    ]
    most = max(range(len(held)), key=held.__getitem__)
    if 2 * held[most] >= sum(held):
        return sections[first + most].heading_path
    shared: list[str] = []
    for names in zip(*(s.heading_path for s in sections[first : last + 1]), strict=False):
        if any(n != names[0] for n in names):
            break
        shared.append(names[0])
    return tuple(shared)


def fixed_pieces(sections: list[Section], target: int, overlap: int) -> list[Piece]:
    text = ""
    starts: list[int] = []
    for section in sections:
        if text:
            text += SEPARATOR
        starts.append(len(text))
        text += section.text

    def section_at(offset: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    pieces = []
    for a, b in split_spans(text, target, overlap):
        content = text[a:b].strip()
        if not content:
            continue
        lead = a + (len(text[a:b]) - len(text[a:b].lstrip()))
        at_first, at_last = section_at(lead), section_at(max(a, b - 1))
        first, last = sections[at_first], sections[at_last]
        part = replace(first, text=content, header_lines=0)
        loc = locator_of(first, last)
        path = _heading_path(sections, starts, at_first, at_last, a, b)
        if path:
            loc["headingPath"] = list(path)
        else:
            loc.pop("headingPath", None)
        # A piece of a sheet locates its own rows, not the whole sheet's.
        row_start = _row_at(first, lead - starts[at_first])
        row_end = _row_at(last, max(a, b - 1) - starts[at_last])
        if row_start is not None:
            loc["rowStart"] = row_start
        if row_end is not None and last.locator.sheet == first.locator.sheet:
            loc["rowEnd"] = row_end
        pieces.append(Piece(content, path, loc, first.block_type, [part]))
    return pieces


def _table_pieces(section: Section, target: int) -> list[Piece] | None:
    lines = section.text.split("\n")
    header = "\n".join(lines[: section.header_lines])
    rows = lines[section.header_lines :]
    if not rows or len(header) + 1 >= target // 2:
        return None  # no body rows, or a header too wide to repeat: cut as text
    budget = target - len(header) - 1
    pieces: list[Piece] = []
    current: list[str] = []
    size = 0
    numbers = section.row_numbers if len(section.row_numbers) == len(rows) else ()
    first_row = 0

    def add(text: str, first: int, last: int) -> None:
        part = replace(section, text=text)
        if numbers:
            # A spreadsheet's piece locates its own rows (the section spans the whole sheet).
            rows_at = replace(section.locator, row_start=numbers[first], row_end=numbers[last])
            part = replace(part, locator=rows_at, row_numbers=numbers[first : last + 1])
        loc = locator_of(part, part)
        pieces.append(Piece(text, section.heading_path, loc, "table", [part]))

    def flush(index: int) -> None:
        nonlocal current, size, first_row
        if current:
            add(header + "\n" + "\n".join(current), first_row, index - 1)
        current, size, first_row = [], 0, index

    for index, row in enumerate(rows):
        if len(row) > budget:
            flush(index)
            for a, b in split_spans(row, budget):
                add(header + "\n" + row[a:b], index, index)
            first_row = index + 1
            continue
        if current and size + 1 + len(row) > budget:
            flush(index)
        current.append(row)
        size += len(row) + 1
    flush(len(rows))
    return pieces


def _split_section(section: Section, target: int, overlap: int) -> list[Piece]:
    if section.block_type == "table" and section.header_lines:
        table = _table_pieces(section, target)
        if table is not None:
            return table
    return fixed_pieces([section], target, overlap)


def structure_pieces(sections: list[Section], target: int, overlap: int) -> list[Piece]:
    pieces: list[Piece] = []
    for _path, group in groupby(sections, key=lambda s: s.heading_path):
        current: list[Section] = []
        size = 0

        def flush() -> None:
            nonlocal current, size
            if current:
                content = SEPARATOR.join(s.text.strip() for s in current)
                pieces.append(
                    Piece(
                        content,
                        current[0].heading_path,
                        locator_of(current[0], current[-1]),
                        current[0].block_type,
                        list(current),
                    )
                )
            current, size = [], 0

        for section in group:
            length = len(section.text.strip())
            if length > target:
                flush()
                pieces.extend(_split_section(section, target, overlap))
                continue
            if current and size + len(SEPARATOR) + length > target:
                flush()
            current.append(section)
            size += length + (len(SEPARATOR) if size else 0)
        flush()
    return pieces
