"""Rows of a spreadsheet (XLSX, ODS, CSV) → one table section the chunker splits by rows.

A sheet becomes the same structure the Markdown parser hands the chunker: a pipe table whose
two header lines (the header row and its delimiter) are repeated on every piece, plus the sheet
row number of every body line, so each piece locates its own rows ("Sheet "差旅标准" · rows
12–30"). Cells are counted against the document's limits as rows arrive, so a million-row or
very wide sheet fails alone with a coded reason before it is held in memory.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import Locator, Section

_NUMBER = re.compile(r"^[-+]?[\d,]*\.?\d+(?:[eE][-+]?\d+)?%?$")


def cell_text(value: object) -> str:
    """A cell's value as table text: whole floats without ``.0``, dates without a midnight
    time, one line, and no ``|`` that would end the cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        text = str(int(value))
    elif isinstance(value, dt.datetime):
        text = value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ")
    elif isinstance(value, dt.date | dt.time):
        text = value.isoformat()
    else:
        text = str(value)
    return " ".join(text.split()).replace("|", "\\|")


def column_name(index: int) -> str:
    """A spreadsheet column's letters (0 → A, 26 → AA): the header of a sheet without one."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(65 + rest) + name
    return name


def looks_like_header(first: Sequence[str], distinct: bool = True) -> bool:
    """A first row reads as a header when every cell is filled with (distinct) non-numeric
    text."""
    cells = [c for c in first if c]
    return (
        bool(cells)
        and len(cells) == len(first)
        and (not distinct or len(set(cells)) == len(cells))
        and not any(_NUMBER.match(c.replace(" ", "")) for c in cells)
    )


def fill_merged(header: list[str]) -> list[str]:
    """A merged header cell is read as its value followed by empty cells: each empty header
    cell after a filled one takes that value ("Q1 | Q1 | Q1")."""
    filled: list[str] = []
    for cell in header:
        filled.append(cell or (filled[-1] if filled else ""))
    return filled


class SheetTable:
    """Collects one sheet's non-empty rows (counted against the limits as they come)."""

    def __init__(self, sheet: str) -> None:
        self.sheet = sheet
        self.rows: list[tuple[int, list[str]]] = []
        self._seen = 0

    def add(self, number: int, values: Iterable[object]) -> None:
        self._seen += 1
        if self._seen % 256 == 0:
            limits.check()
        cells = [cell_text(v) for v in values]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            return
        limits.check_table(len(cells), 1)
        self.rows.append((number, cells))

    def section(self, heading_path: tuple[str, ...], with_header: bool | None = None) -> Section:
        """The sheet as a table section; ``with_header`` None: the first row is the header
        when it looks like one, else the columns are named by their letters."""
        width = max(len(cells) for _n, cells in self.rows)
        header, body = self._header(width, with_header)
        if not body:  # a header alone: its row is the content
            header, body = [column_name(i) for i in range(width)], self.rows
        lines = [_line(header), _line(["---"] * width)]
        lines.extend(_line(cells + [""] * (width - len(cells))) for _n, cells in body)
        text = "\n".join(lines)
        limits.produce(sections=1, characters=len(text))
        numbers = tuple(n for n, _cells in body)
        return Section(
            text,
            "table",
            heading_path,
            Locator(sheet=self.sheet or None, row_start=numbers[0], row_end=numbers[-1]),
            header_lines=2,
            row_numbers=numbers,
        )

    def _header(
        self, width: int, with_header: bool | None
    ) -> tuple[list[str], list[tuple[int, list[str]]]]:
        """The header and the body rows: the first row (merged cells filled), or a merged
        group row and the row under it ("Q1 Jan | Q1 Feb"), or the column letters."""
        rows = [cells + [""] * (width - len(cells)) for _n, cells in self.rows[:2]]
        letters = [column_name(i) for i in range(width)]
        if len(rows) < 2 or with_header is False:
            return letters, self.rows
        first, second = rows
        if with_header or looks_like_header(first):
            return fill_merged(first), self.rows[1:]
        if any(first) and looks_like_header(second):
            group = fill_merged(first)
            return [
                f"{a} {b}" if a != b else a for a, b in zip(group, second, strict=True)
            ], self.rows[2:]
        if looks_like_header(fill_merged(first), distinct=False):
            return fill_merged(first), self.rows[1:]
        return letters, self.rows

    def __bool__(self) -> bool:
        return bool(self.rows)


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"
