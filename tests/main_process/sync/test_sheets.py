"""Spreadsheets (issue 35): XLSX, XLSM, ODS, CSV and TSV files written by their own libraries
are parsed into sheet tables the chunker splits by rows with the header on every piece and the
sheet/row locator; empty, corrupt and hostile files fail alone with coded reasons."""

from __future__ import annotations

import csv
import io
import itertools
import os
import re
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from odf.opendocument import OpenDocumentSpreadsheet
from odf.style import Style, TableProperties
from odf.table import Table, TableCell, TableRow
from odf.text import P
from openpyxl import Workbook

from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking.chunker import chunk_document
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.parsing import ParseError, limits, parse
from goodbuddy_kb.main_process.storage import documents
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.engine import sync_source

HEADER = ["城市", "住宿标准", "伙食补贴"]


def xlsx(rows: int = 60, hidden: bool = False) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "差旅标准"
    sheet.append(HEADER)
    for i in range(rows):
        sheet.append([f"城市{i}", 500 + i, 100])
    sheet.append(["Shenzhen", 650, 120])
    english = book.create_sheet("Contacts")
    english.append(["Name", "Phone"])
    english.append(["Alice Walrus", "555-0100"])
    merged = book.create_sheet("Quarters")
    merged.append(["Q1", None, None])
    merged.merge_cells("A1:C1")
    merged.append(["Jan", "Feb", "Mar"])
    merged.append([10, 20, 30])
    if hidden:
        secret = book.create_sheet("Salaries")
        secret.append(["Name", "Salary"])
        secret.append(["Bob", "hiddenmarker"])
        secret.sheet_state = "hidden"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
WORKSHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"


def written(sheets: int = 1, rows: str = "") -> bytes:
    """An XLSX of ``sheets`` sheets each holding ``rows`` (the rows' XML), with openpyxl's own
    styles, theme and properties parts. Written here because openpyxl's writer takes minutes
    over ten thousand sheets or a million rows, and these tests are about reading them."""
    book = Workbook()
    out = io.BytesIO()
    book.save(out)
    with zipfile.ZipFile(out) as archive:
        parts = {n: archive.read(n) for n in archive.namelist() if "sheet" not in n}
    names = [f"xl/worksheets/sheet{i}.xml" for i in range(1, sheets + 1)]
    relations = "".join(
        f'<Relationship Id="s{i}" Type="{RELS}/worksheet" Target="/{n}"/>'
        for i, n in enumerate(names, 1)
    )
    parts["xl/_rels/workbook.xml.rels"] = re.sub(
        rb'<Relationship [^>]*worksheet"[^>]*/>', b"", parts["xl/_rels/workbook.xml.rels"]
    ).replace(b"</Relationships>", relations.encode() + b"</Relationships>")
    overrides = "".join(f'<Override PartName="/{n}" ContentType="{WORKSHEET}"/>' for n in names)
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>", overrides.encode() + b"</Types>"
    )
    entries = "".join(
        f'<sheet name="s{i}" sheetId="{i}" r:id="s{i}"/>' for i in range(1, sheets + 1)
    )
    parts["xl/workbook.xml"] = (
        f'<workbook xmlns="{MAIN}" xmlns:r="{RELS}"><sheets>{entries}</sheets></workbook>'
    ).encode()
    sheet = f'<worksheet xmlns="{MAIN}"><sheetData>{rows}</sheetData></worksheet>'
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
        for name in names:
            archive.writestr(name, sheet)
    return out.getvalue()


def ods_row(values: list[object], **attributes: object) -> object:
    row = TableRow(**attributes)
    for value in values:
        if isinstance(value, int | float):
            cell = TableCell(valuetype="float", value=value)
        else:
            cell = TableCell(valuetype="string")
        cell.addElement(P(text=str(value)))
        row.addElement(cell)
    return row


def ods(hidden: bool = False, repeat: int = 1) -> bytes:
    document = OpenDocumentSpreadsheet()
    style = Style(name="hiddentable", family="table")
    style.addElement(TableProperties(display="false"))
    document.automaticstyles.addElement(style)
    table = Table(name="联系人")
    table.addElement(ods_row(["姓名", "邮箱"]))
    table.addElement(ods_row(["王五", "wang@example.com"], numberrowsrepeated=repeat))
    table.addElement(ods_row(["Carol Narwhal", 42]))
    table.addElement(TableRow(numberrowsrepeated=1_048_000))  # LibreOffice's trailing rows
    document.spreadsheet.addElement(table)
    if hidden:
        secret = Table(name="Secret", stylename="hiddentable")
        secret.addElement(ods_row(["hiddenmarker"]))
        document.spreadsheet.addElement(secret)
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def csv_bytes(rows: list[list[str]], encoding: str, delimiter: str = ",") -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter).writerows(rows)
    return out.getvalue().encode(encoding)


def chunks(data: bytes, name: str) -> list[tuple[dict[str, object], str]]:
    settings = KnowledgeChunkingSettings(mode="structure", target_characters=400)
    drafts = chunk_document(parse(data, name), "doc", settings)
    return [(d.locator, d.content) for d in drafts]


def test_xlsx_sheets_become_tables_cut_by_rows_with_header_and_row_locators() -> None:
    pieces = chunks(xlsx(), "travel.xlsx")
    travel = [(loc, text) for loc, text in pieces if loc.get("sheet") == "差旅标准"]
    assert len(travel) > 2
    for _loc, text in travel:
        assert text.startswith("| 城市 | 住宿标准 | 伙食补贴 |\n| --- | --- | --- |\n")
    assert travel[0][0]["rowStart"] == 2
    assert travel[-1][0]["rowEnd"] == 62
    assert all(
        int(str(a[0]["rowEnd"])) + 1 == b[0]["rowStart"] for a, b in itertools.pairwise(travel)
    )
    shenzhen = next(text for loc, text in travel if "Shenzhen" in text)
    assert "| Shenzhen | 650 | 120 |" in shenzhen
    contacts = next(text for loc, text in pieces if loc.get("sheet") == "Contacts")
    assert contacts == "| Name | Phone |\n| --- | --- |\n| Alice Walrus | 555-0100 |"
    quarters = next((loc, text) for loc, text in pieces if loc.get("sheet") == "Quarters")
    assert quarters[1].splitlines()[0] == "| Q1 Jan | Q1 Feb | Q1 Mar |"
    assert quarters[0]["rowStart"] == 3


def test_formulas_read_as_cached_values_and_xlsm_is_read_like_xlsx() -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Item", "Total"])
    sheet.append(["Hotel", "=1+1"])  # openpyxl stores no cached value: the cell reads empty
    out = io.BytesIO()
    book.save(out)
    doc = parse(out.getvalue(), "book.xlsm")
    table = next(s for s in doc.sections if s.block_type == "table")
    assert "=1+1" not in table.text and "| Hotel |" in table.text


def test_hidden_sheets_are_skipped_and_said_so_in_a_coded_note() -> None:
    for data, name in ((xlsx(hidden=True), "a.xlsx"), (ods(hidden=True), "a.ods")):
        doc = parse(data, name)
        assert not any("hiddenmarker" in s.text for s in doc.sections)
        coded = classify(doc.notes[0])
        assert coded is not None and coded.code == "parse.hidden_sheets"


def test_ods_rows_repeat_and_trailing_empty_rows_cost_nothing() -> None:
    doc = parse(ods(repeat=3), "contacts.ods")
    table = next(s for s in doc.sections if s.block_type == "table")
    assert table.text.splitlines()[:3] == [
        "| 姓名 | 邮箱 |",
        "| --- | --- |",
        "| 王五 | wang@example.com |",
    ]
    assert table.row_numbers == (2, 3, 4, 5)
    assert "| Carol Narwhal | 42 |" in table.text


@pytest.mark.parametrize("encoding", ["gb18030", "utf-8", "utf-8-sig"])
def test_csv_in_chinese_encodings_and_tsv(encoding: str) -> None:
    rows = [["姓名", "部门", "电话"], ["张三", "财务部", "8001"], ["李四", "人事部", "8002"]]
    doc = parse(csv_bytes(rows, encoding), "通讯录.csv")
    (table,) = doc.sections
    assert table.text.splitlines()[0] == "| 姓名 | 部门 | 电话 |"
    assert "| 李四 | 人事部 | 8002 |" in table.text
    assert table.locator.row_start == 2 and table.locator.row_end == 3
    semicolons = parse(csv_bytes(rows, encoding, ";"), "a.csv").sections[0]
    assert semicolons.text == table.text
    tabs = parse(csv_bytes(rows, encoding, "\t"), "a.tsv").sections[0]
    assert tabs.text == table.text


def test_csv_without_a_header_row_gets_column_letters() -> None:
    doc = parse(csv_bytes([["1", "2"], ["3", "4"]], "utf-8"), "n.csv")
    assert doc.sections[0].text.splitlines()[0] == "| A | B |"
    assert doc.sections[0].locator.row_start == 1


def test_xls_is_refused_with_the_way_out() -> None:
    with pytest.raises(ParseError) as caught:
        parse(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512, "old.xls")
    coded = classify(caught.value.reason)
    assert coded is not None and coded.code == "parse.old_format"
    assert coded.params == {"name": "Excel", "suffix": ".xls", "target": ".xlsx"}


def refusal(data: bytes, name: str) -> tuple[str | None, float, float]:
    """The refusal's code, seconds and peak MB. Under a roomy time budget: tracemalloc slows the
    parse several times over, and the point here is the limit that refuses and the memory it
    takes, not the parse clock (``bench/hostile_inputs.py`` measures the time)."""
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(ParseError) as caught, limits.budget(seconds=300):
            parse(data, name)
        peak = tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()
    coded = classify(caught.value.reason)
    return (coded.code if coded else caught.value.reason), time.monotonic() - started, peak


@pytest.mark.slow
def test_a_million_row_sheet_is_refused_quickly_in_bounded_memory() -> None:
    rows = "".join(f'<row r="{i}"><c r="A{i}"><v>{i}</v></c></row>' for i in range(1, 1_000_001))
    code, seconds, peak = refusal(written(rows=rows), "big.xlsx")
    assert code == "parse.archive_member" and seconds < 30 and peak < 100


@pytest.mark.slow
def test_ten_thousand_sheets_are_refused_from_the_archive_directory() -> None:
    code, seconds, _peak = refusal(written(sheets=10_000), "many.xlsx")
    assert code == "parse.archive_parts" and seconds < 30


def test_too_many_cells_are_refused_as_they_are_read_in_bounded_memory() -> None:
    book = Workbook(write_only=True)
    sheet = book.create_sheet("dense")
    for i in range(60_000):
        sheet.append([i, i])
    out = io.BytesIO()
    book.save(out)
    code, _, peak = refusal(out.getvalue(), "dense.xlsx")
    assert code == "parse.limit_cells" and peak < 300

    code, _, peak = refusal(ods(repeat=1_000_000), "big.ods")
    assert code == "parse.limit_cells" and peak < 100


def test_a_sparse_million_row_sheet_reads_in_time() -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet["A1"] = "Note"
    sheet["A1000000"] = "last row marker"
    out = io.BytesIO()
    book.save(out)
    started = time.monotonic()
    (table,) = [s for s in parse(out.getvalue(), "sparse.xlsx").sections if s.block_type == "table"]
    assert table.locator.row_start == 1_000_000 and time.monotonic() - started < 10


def test_a_sync_reads_every_spreadsheet_and_fails_empty_and_corrupt_ones_alone(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    (folder / "travel.xlsx").write_bytes(xlsx())
    (folder / "contacts.ods").write_bytes(ods())
    (folder / "phones.csv").write_bytes(
        csv_bytes([["Name", "Ext"], ["Zed Okapi", "77"]], "gb18030")
    )
    (folder / "empty.csv").write_bytes(b"")
    (folder / "empty.xlsx").write_bytes(b"")
    (folder / "corrupt.xlsx").write_bytes(xlsx()[:3000])
    (folder / "corrupt.ods").write_bytes(b"PK\x03\x04 not really a zip")
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == 4
    docs, _ = documents.page(pool.get(), folder_source.library_id, 0, 50, "all")
    by_path = {d.path: d for d in docs}
    for name in ("travel.xlsx", "contacts.ods", "phones.csv"):
        assert by_path[name].status.parse == "done", by_path[name].error
    for name in ("empty.csv", "empty.xlsx", "corrupt.xlsx", "corrupt.ods"):
        assert by_path[name].status.parse == "failed"
        assert by_path[name].error_code is not None, by_path[name].error
    for word in (
        "Okapi",
        "Narwhal",
        "Walrus",
    ):
        hits = search(pool.get(), "fts", [folder_source.library_id], build_query(word), 10)
        assert len(hits) == 1, word


def test_an_ods_content_part_too_large_for_odfpy_is_refused_before_it_is_loaded() -> None:
    document = OpenDocumentSpreadsheet()
    table = Table(name="big")
    table.addElement(ods_row(["notes"]))
    table.addElement(ods_row([os.urandom(5 * 1024 * 1024).hex()]))
    document.spreadsheet.addElement(table)
    out = io.BytesIO()
    document.write(out)
    code, seconds, peak = refusal(out.getvalue(), "big.ods")
    assert code == "parse.archive_member" and seconds < 30 and peak < 100
