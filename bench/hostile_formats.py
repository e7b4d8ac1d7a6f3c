"""The hostile files of issue 35 for ``bench/hostile_inputs.py``: spreadsheets, presentations,
OpenDocument, RTF and e-books, each written by its format's own library (openpyxl, odfpy,
python-pptx, tests/bookgen.py for EPUB, the csv module) and parsed in a child process by the caller's
``run_case``, which measures the parse's own seconds and the child's peak resident memory.

The cases: ZIP bombs (300 MB of zeros in an XLSX, PPTX, ODS, ODP and ODT; an EPUB chapter of
300 MB), 10,000 sheets, 10,000 slides, 10,000 ODP pages, a 1,000,000-row XLSX, a sparse one whose
only cells are rows 1 and 1,000,000, a dense sheet past the table-cell budget, an ODS row repeated
a million times, a CSV of a million rows, a long ODT and an RTF of escaped Chinese.
"""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.bookgen import epub_bomb
from tests.slidegen import (
    make_odp,
    make_odt,
    make_pptx,
    make_rtf,
    pptx_with_slides,
    rtf_escaped,
    with_member,
)

RunCase = Callable[[Path, str, list[str], float], tuple[float, float, str]]
Case = tuple[str, str, Callable[[], bytes]]

#: The bomb's expanded member (MB of zeros; the archive holds about 300 KB).
BOMB_MB = 300


def _xlsx(sheets: int = 1, rows: int = 0, columns: int = 1) -> bytes:
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    for number in range(sheets):
        sheet = book.create_sheet(f"s{number}")
        for row in range(rows):
            sheet.append([row] * columns)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _sparse() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet["A1"] = "Note"
    sheet["A1000000"] = "last"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _ods(times: int = 1) -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="big")
    row = TableRow(numberrowsrepeated=times)
    for text in ("a", "b"):
        cell = TableCell(valuetype="string")
        cell.addElement(P(text=text))
        row.addElement(cell)
    table.addElement(row)
    document.spreadsheet.addElement(table)
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def _csv(rows: int) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "name"])
    writer.writerows([i, f"name{i}"] for i in range(rows))
    return out.getvalue().encode()


def _bomb(make: Callable[[], bytes]) -> Callable[[], bytes]:
    return lambda: with_member(make(), "z.bin", b"\0" * (BOMB_MB * 1024 * 1024))


def cases() -> list[Case]:
    """Label, file name (its extension picks the parser) and the maker of its bytes."""
    many_rows = [["Item", "Value"]] + [[f"row {i}", str(i)] for i in range(20_000)]
    long_body = [("p", f"paragraph text number {i} with words") for i in range(150_000)]
    return [
        (f"XLSX bomb, {BOMB_MB} MB of zeros", "x.xlsx", _bomb(_xlsx)),
        (f"PPTX bomb, {BOMB_MB} MB of zeros", "x.pptx", _bomb(lambda: make_pptx([]))),
        (f"ODS bomb, {BOMB_MB} MB of zeros", "x.ods", _bomb(_ods)),
        (f"ODP bomb, {BOMB_MB} MB of zeros", "x.odp", _bomb(lambda: make_odp([]))),
        (f"ODT bomb, {BOMB_MB} MB of zeros", "x.odt", _bomb(lambda: make_odt([]))),
        (f"EPUB bomb, a {BOMB_MB} MB chapter", "x.epub", lambda: epub_bomb(BOMB_MB)),
        ("XLSX, 10,000 sheets", "x.xlsx", lambda: _xlsx(sheets=10_000)),
        ("PPTX, 10,000 slides", "x.pptx", lambda: pptx_with_slides(10_000)),
        ("PPTX, 900 slides", "x.pptx", lambda: pptx_with_slides(900)),
        ("ODP, 10,000 pages", "x.odp", lambda: make_odp([{"boxes": [("p", 1, 1)]}] * 10_000)),
        ("XLSX, 1,000,000 rows", "x.xlsx", lambda: _xlsx(rows=1_000_000)),
        ("XLSX, rows 1 and 1,000,000 only", "x.xlsx", _sparse),
        ("XLSX, 60,000 rows x 2 (cell budget)", "x.xlsx", lambda: _xlsx(1, 60_000, 2)),
        ("ODS, one row repeated 1,000,000 times", "x.ods", lambda: _ods(1_000_000)),
        ("CSV, 1,000,000 rows", "x.csv", lambda: _csv(1_000_000)),
        ("ODT, 150,000 paragraphs (8 MB body)", "x.odt", lambda: make_odt(long_body)),
        ("ODT, a 20,000-row table", "x.odt", lambda: make_odt([("table", many_rows)])),
        (
            "RTF, 18 MB of GBK escapes",
            "x.rtf",
            lambda: make_rtf([rtf_escaped("中文段落内容很多") * 120] * 5000),
        ),
    ]


def format_cases(
    src: Path, timeout: float, parse_code: str, run_case: RunCase
) -> Iterator[tuple[str, float, float, str]]:
    """Each case's row: ``label [file KB]``, seconds, peak MB and what the parser did. One file
    at a time is written, parsed and removed, so the bench holds one hostile file at once."""
    with tempfile.TemporaryDirectory() as tmp:
        for label, name, make in cases():
            data = make()
            path = Path(tmp) / name
            path.write_bytes(data)
            del data
            size = path.stat().st_size // 1024
            outcome = run_case(src, parse_code, [str(path), name], timeout)
            path.unlink()
            yield (f"35 {label} [{size} KB]", *outcome)
