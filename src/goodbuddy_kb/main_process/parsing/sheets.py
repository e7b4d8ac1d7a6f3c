"""Spreadsheets: XLSX and XLSM (openpyxl, values only), ODS (odfpy); XLS is refused.

Each visible sheet becomes a heading (its name) and one table section of its rows
(``sheet_table``): formulas read as the values the program that saved the file computed, never
as formulas, and macros are never read. Hidden sheets are skipped and named in the document's
notes. Both formats are ZIPs, checked by ``limits.check_zip`` before a library opens them;
openpyxl streams rows (read-only mode), odfpy builds the whole document in memory, so its
content part has a smaller cap of its own. A repeated ODS row or column is counted before it is
expanded (LibreOffice writes a million trailing empty rows as one repeated row).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import ParsedDocument, ParseError, Section
from goodbuddy_kb.main_process.parsing.sheet_table import SheetTable

XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
ODS_TYPE = "application/vnd.oasis.opendocument.spreadsheet"
#: Sheets read from one workbook.
MAX_SHEETS = 1_000
#: An ODS content part larger than this is refused before odfpy holds it as a tree, which it
#: builds without a time check (12 MB of XML: 9 s and about 270 MB).
MAX_ODS_CONTENT_BYTES = 8 * 1024 * 1024


def _open_zip(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            limits.check_zip(archive)
    except zipfile.BadZipFile as exc:
        raise ParseError(Reason("parse.sheet_unreadable", error=type(exc).__name__)) from exc


def _document(
    title: str, media_type: str, tables: list[tuple[str, SheetTable]], hidden: list[str]
) -> ParsedDocument:
    sections: list[Section] = []
    for name, table in tables:
        if not table:
            continue
        limits.produce(sections=1, characters=len(name))
        sections.append(Section(name, "heading", (name,)))
        sections.append(table.section((name,)))
    notes = (Reason("parse.hidden_sheets", names="、".join(hidden)),) if hidden else ()
    return ParsedDocument(title, media_type, sections, notes=notes)


def _too_many_sheets(count: int) -> None:
    if count > MAX_SHEETS:
        raise ParseError(Reason("parse.sheet_count", count=count, limit=MAX_SHEETS))


def parse_xlsx(data: bytes, title: str) -> ParsedDocument:
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    _open_zip(data)
    try:
        workbook = load_workbook(
            io.BytesIO(data), read_only=True, data_only=True, keep_links=False, keep_vba=False
        )
    except (InvalidFileException, KeyError, ValueError, TypeError, zipfile.BadZipFile) as exc:
        raise ParseError(Reason("parse.sheet_unreadable", error=type(exc).__name__)) from exc
    try:
        _too_many_sheets(len(workbook.worksheets))
        tables: list[tuple[str, SheetTable]] = []
        hidden: list[str] = []
        for sheet in workbook.worksheets:
            limits.check()
            if sheet.sheet_state != "visible":
                hidden.append(sheet.title)
                continue
            table = SheetTable(sheet.title)
            # The stored dimension may claim 16,384 columns: read the rows as they are.
            sheet.reset_dimensions()
            for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
                table.add(number, row)
            tables.append((sheet.title, table))
        doc_title = (workbook.properties.title or "").strip() or title
    finally:
        workbook.close()
    return _document(doc_title, XLSX_TYPE, tables, hidden)


def parse_ods(data: bytes, title: str) -> ParsedDocument:
    from odf.opendocument import load
    from odf.table import Table

    _open_zip(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        try:
            size = archive.getinfo("content.xml").file_size
        except KeyError as exc:
            raise ParseError(Reason("parse.sheet_unreadable", error="KeyError")) from exc
    if size > MAX_ODS_CONTENT_BYTES:
        raise ParseError(
            Reason(
                "parse.archive_member", limit=MAX_ODS_CONTENT_BYTES // 1048576, name="content.xml"
            )
        )
    try:
        document = load(io.BytesIO(data))
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        raise ParseError(Reason("parse.sheet_unreadable", error=type(exc).__name__)) from exc
    sheets = document.spreadsheet.getElementsByType(Table)
    _too_many_sheets(len(sheets))
    hidden_styles = _hidden_table_styles(document)
    tables: list[tuple[str, SheetTable]] = []
    hidden: list[str] = []
    for sheet in sheets:
        limits.check()
        name = str(sheet.getAttribute("name") or "")
        if sheet.getAttribute("stylename") in hidden_styles:
            hidden.append(name)
            continue
        table = SheetTable(name)
        for number, row in _ods_rows(sheet):
            table.add(number, row)
        tables.append((name, table))
    return _document(title, ODS_TYPE, tables, hidden)


def _hidden_table_styles(document: object) -> set[str]:
    from odf.style import Style, TableProperties

    hidden = set()
    for style in document.automaticstyles.getElementsByType(Style):  # type: ignore[attr-defined]
        for props in style.getElementsByType(TableProperties):
            if str(props.getAttribute("display")).lower() == "false":
                hidden.add(style.getAttribute("name"))
    return hidden


def _ods_rows(sheet: object) -> Iterator[tuple[int, list[str]]]:
    """(row number, cell texts) of the sheet's rows; a repeated row is counted before it is
    expanded and an empty one is skipped however often it repeats."""
    from odf.table import TableRow

    number = 0
    for row in sheet.getElementsByType(TableRow):  # type: ignore[attr-defined]
        repeat = int(row.getAttribute("numberrowsrepeated") or 1)
        cells = _ods_cells(row)
        if not any(cells):
            number += repeat
            continue
        limits.check_table(len(cells), repeat - 1)
        for _ in range(repeat):
            number += 1
            yield number, cells


def _ods_cells(row: object) -> list[str]:
    cells: list[str] = []
    for cell in row.childNodes:  # type: ignore[attr-defined]
        if cell.qname[1] not in ("table-cell", "covered-table-cell"):
            continue
        repeat = int(cell.getAttribute("numbercolumnsrepeated") or 1)
        value = " ".join(_ods_value(cell).split())
        if value:
            limits.check_table(len(cells) + repeat, 0)
            cells.extend([value] * repeat)
        else:
            # Trailing empty cells (16,384 repeated to the sheet's edge) are never expanded.
            cells.append("\x00" + str(repeat))
    return _expand_gaps(cells)


def _expand_gaps(cells: list[str]) -> list[str]:
    while cells and cells[-1].startswith("\x00"):
        cells.pop()
    out: list[str] = []
    for cell in cells:
        if cell.startswith("\x00"):
            gap = int(cell[1:])
            limits.check_table(len(out) + gap, 0)
            out.extend([""] * gap)
        else:
            out.append(cell)
    return out


def _ods_value(cell: object) -> str:
    from odf import teletype

    get = cell.getAttribute  # type: ignore[attr-defined]
    kind = get("valuetype")
    if kind in ("float", "percentage", "currency"):
        raw = get("value")
        try:
            number = float(raw)
        except (TypeError, ValueError):
            return str(teletype.extractText(cell))
        return str(int(number)) if number.is_integer() and abs(number) < 1e15 else str(raw)
    if kind == "date":
        return str(get("datevalue") or "").removesuffix("T00:00:00")
    if kind == "boolean":
        return "TRUE" if str(get("booleanvalue")).lower() == "true" else "FALSE"
    return str(teletype.extractText(cell))
