"""CSV and TSV: the encoding found on evidence (``encoding.detect``: GB18030, UTF-8 with or
without a BOM, …), the dialect sniffed from the first lines (a ``.tsv`` is tab-separated), and
the rows as one table section (``sheet_table``) whose locator is the file's row numbers."""

from __future__ import annotations

import csv
import io

from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.main_process.parsing.model import ParsedDocument, ParseError
from goodbuddy_kb.main_process.parsing.sheet_table import SheetTable
from goodbuddy_kb.main_process.parsing.text import decode

#: Characters the dialect is sniffed from.
SNIFF_CHARACTERS = 64 * 1024
#: The longest cell read (the csv module's default is 128 KB).
MAX_FIELD_CHARACTERS = 1024 * 1024


def _dialect(text: str, tabs: bool) -> type[csv.Dialect] | csv.Dialect:
    if tabs:
        return csv.excel_tab
    try:
        return csv.Sniffer().sniff(text[:SNIFF_CHARACTERS], delimiters=",;\t|")
    except csv.Error:
        return csv.excel


def _parse(data: bytes, title: str, tabs: bool) -> ParsedDocument:
    text = decode(data)
    reader = csv.reader(io.StringIO(text, newline=""), _dialect(text, tabs))
    table = SheetTable("")
    csv.field_size_limit(MAX_FIELD_CHARACTERS)
    try:
        for number, row in enumerate(reader, start=1):
            table.add(number, row)
    except csv.Error as exc:
        raise ParseError(Reason("parse.csv_unreadable", error=str(exc)[:80])) from exc
    sections = [table.section(())] if table else []
    media_type = "text/tab-separated-values" if tabs else "text/csv"
    return ParsedDocument(title, media_type, sections)


def parse_csv(data: bytes, title: str) -> ParsedDocument:
    return _parse(data, title, tabs=False)


def parse_tsv(data: bytes, title: str) -> ParsedDocument:
    return _parse(data, title, tabs=True)
