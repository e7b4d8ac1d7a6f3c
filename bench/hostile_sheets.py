"""Time and peak memory of the hostile spreadsheets of issue 35, each parsed in a child process
(``hostile_inputs.run_case``: the operation's own seconds and the child's peak resident memory).

    python bench/hostile_sheets.py                      # this tree
    python bench/hostile_sheets.py --src OLD/src        # another tree

The files are written by the formats' own libraries (openpyxl, odfpy, the csv module): a
million-row sheet, a sparse one whose only cells are rows 1 and 1,000,000, 10,000 sheets, a
dense sheet past the table-cell budget, an ODS row repeated a million times and a CSV of a
million rows.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.hostile_inputs import PARSE, _print, run_case  # noqa: E402


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


def _ods_repeated(times: int) -> bytes:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    cases = (
        ("XLSX, 1,000,000 rows", "x.xlsx", lambda: _xlsx(rows=1_000_000)),
        ("XLSX, rows 1 and 1,000,000 only", "x.xlsx", _sparse),
        ("XLSX, 10,000 sheets", "x.xlsx", lambda: _xlsx(sheets=10_000)),
        ("XLSX, 60,000 rows x 2 (past the cell budget)", "x.xlsx", lambda: _xlsx(1, 60_000, 2)),
        ("ODS, one row repeated 1,000,000 times", "x.ods", lambda: _ods_repeated(1_000_000)),
        ("CSV, 1,000,000 rows", "x.csv", lambda: _csv(1_000_000)),
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, name, make in cases:
            data = make()
            path = Path(tmp) / name
            path.write_bytes(data)
            rows.append(
                (
                    f"{label} [{len(data) // 1024} KB]",
                    *run_case(args.src, PARSE, [str(path), name], args.timeout),
                )
            )
    _print(args, rows)


if __name__ == "__main__":
    main()
