"""OpenDocument text (ODT) and presentations (ODP), read with odfpy, as their Microsoft
counterparts are: an ODT's headings set the heading path over its paragraphs, lists and tables
(as DOCX); an ODP's pages are slides with a title heading, frames in reading order, tables and
speaker notes, each located at its slide (as PPTX).

The archive is checked by ``limits.check_zip`` before odfpy reads it; repeated table cells and
rows (``number-columns-repeated``) are counted against the table limits before they are expanded.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any
from xml.sax import SAXException

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section
from goodbuddy_kb.main_process.parsing.slides import (
    check_slide_count,
    notes_section,
    table_section,
)

ODT_TYPE = "application/vnd.oasis.opendocument.text"
ODP_TYPE = "application/vnd.oasis.opendocument.presentation"
_LENGTH = re.compile(r"(-?[0-9.]+)\s*(cm|mm|in|pt|pc|px)?")
_CM = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}


def _ns() -> Any:
    from odf import namespaces

    return namespaces


def _load(data: bytes) -> Any:
    from odf.opendocument import load

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            limits.check_zip(archive)
            _check_content_size(archive)
        return load(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError, SAXException) as exc:
        raise ParseError(
            f"the OpenDocument file could not be read ({exc.__class__.__name__})"
        ) from exc


def _check_content_size(archive: zipfile.ZipFile) -> None:
    """odfpy builds a Python object per XML node (~30 MB of memory per MB of ``content.xml``,
    and no time check can run inside its load), so the body is refused past
    ``limits.MAX_ODF_CONTENT_BYTES`` as it really expands."""
    size = 0
    with archive.open("content.xml") as member:
        while chunk := member.read(1024 * 1024):
            size += len(chunk)
            if size > limits.MAX_ODF_CONTENT_BYTES:
                raise ParseError(
                    "a part of the archive expands past "
                    f"{limits.MAX_ODF_CONTENT_BYTES // 1048576} MB (content.xml)"
                )


def _name(node: Any) -> tuple[str, str] | None:
    return node.qname if node.nodeType == node.ELEMENT_NODE else None


def _text(node: Any) -> str:
    from odf.teletype import extractText

    return " ".join(str(extractText(node)).split())


def _repeat(node: Any, attribute: str) -> int:
    value = node.getAttrNS(_ns().TABLENS, attribute)
    return int(value) if value and str(value).isdigit() else 1


def _table_rows(table: Any) -> list[list[str]]:
    """The table's rows with repeated cells and rows expanded once counted (trailing empty
    cells and empty rows dropped, as an editor's padding)."""
    ns = _ns().TABLENS
    rows: list[list[str]] = []
    for row in table.getElementsByType(_row_type()):
        limits.check()
        cells: list[tuple[str, int]] = []
        for cell in row.childNodes:
            if _name(cell) in ((ns, "table-cell"), (ns, "covered-table-cell")):
                cells.append((_text(cell), _repeat(cell, "number-columns-repeated")))
        while cells and not cells[-1][0]:
            cells.pop()
        if not cells:
            continue
        times = _repeat(row, "number-rows-repeated")
        limits.check_table(sum(count for _, count in cells), times)
        expanded = [text for text, count in cells for _ in range(count)]
        rows.extend(list(expanded) for _ in range(times))
    return rows


def _row_type() -> Any:
    from odf.table import TableRow

    return TableRow


class _TextWalker:
    """An ODT body in document order: headings, paragraphs, lists and tables."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.path: list[tuple[int, str]] = []

    def heading_path(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.path)

    def add(self, text: str, block: Any) -> None:
        if text:
            limits.produce(sections=1, characters=len(text))
            self.sections.append(Section(text, block, self.heading_path()))

    def walk(self, parent: Any) -> None:
        ns = _ns()
        for node in parent.childNodes:
            name = _name(node)
            if name == (ns.TEXTNS, "h"):
                self.heading(node)
            elif name == (ns.TEXTNS, "p"):
                self.add(_text(node), "paragraph")
            elif name == (ns.TEXTNS, "list"):
                items = [_text(p) for p in node.getElementsByType(_paragraph_type())]
                self.add("\n".join(item for item in items if item), "list")
            elif name == (ns.TABLENS, "table"):
                section = table_section(_table_rows(node), self.heading_path(), Locator())
                if section is not None:
                    self.sections.append(section)
            elif name is not None and name[0] == ns.TEXTNS and name[1] in ("section", "div"):
                self.walk(node)

    def heading(self, node: Any) -> None:
        text = _text(node)
        if not text:
            return
        level = _repeat_level(node)
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, text))
        limits.produce(sections=1, characters=len(text))
        self.sections.append(Section(text, "heading", self.heading_path()))


def _repeat_level(node: Any) -> int:
    value = node.getAttrNS(_ns().TEXTNS, "outline-level")
    return int(value) if value and str(value).isdigit() else 1


def _paragraph_type() -> Any:
    from odf.text import P

    return P


def _meta_title(document: Any) -> str:
    from odf.dc import Title

    titles = document.meta.getElementsByType(Title) if document.meta is not None else []
    return _text(titles[0]) if titles else ""


def parse_odt(data: bytes, title: str) -> ParsedDocument:
    document = _load(data)
    walker = _TextWalker()
    walker.walk(document.text)
    first_heading = next((s.text for s in walker.sections if s.block_type == "heading"), "")
    doc_title = _meta_title(document) or first_heading or title
    return ParsedDocument(doc_title, ODT_TYPE, walker.sections)


def _position(frame: Any) -> tuple[float, float]:
    """A frame's (top, left) in centimetres; frames without a position come first."""
    ns = _ns().SVGNS

    def length(attribute: str) -> float:
        match = _LENGTH.match(str(frame.getAttrNS(ns, attribute) or "0"))
        if match is None:
            return 0.0
        return float(match.group(1)) * _CM.get(match.group(2) or "cm", 1.0)

    return (length("y"), length("x"))


def _page_sections(page: Any, number: int) -> list[Section]:
    ns = _ns()
    locator = Locator(slide=number)
    frames = []
    notes = ""
    for node in page.childNodes:
        name = _name(node)
        if name == (ns.PRESENTATIONNS, "notes"):
            notes = "\n".join(
                t for t in (_text(p) for p in node.getElementsByType(_paragraph_type())) if t
            )
        elif name is not None and name[0] == ns.DRAWNS:
            frames.append(node)
    frames.sort(key=_position)
    titles = [f for f in frames if f.getAttrNS(ns.PRESENTATIONNS, "class") == "title"]
    title = _text(titles[0]) if titles else ""
    path: tuple[str, ...] = (title,) if title else ()
    sections = [Section(title, "heading", path, locator)] if title else []
    for frame in frames:
        limits.check()
        if titles and frame is titles[0]:
            continue
        tables = frame.getElementsByType(_table_type())
        if tables:
            for table in tables:
                section = table_section(_table_rows(table), path, locator)
                if section is not None:
                    sections.append(section)
            continue
        lines = [_text(p) for p in frame.getElementsByType(_paragraph_type())]
        text = "\n".join(line for line in lines if line)
        if text:
            limits.produce(sections=1, characters=len(text))
            sections.append(Section(text, "paragraph", path, locator))
    if notes:
        sections.append(notes_section(notes, path, locator))
    return sections


def _table_type() -> Any:
    from odf.table import Table

    return Table


def parse_odp(data: bytes, title: str) -> ParsedDocument:
    from odf.draw import Page

    document = _load(data)
    pages = document.presentation.getElementsByType(Page)
    check_slide_count(len(pages))
    sections: list[Section] = []
    for number, page in enumerate(pages, start=1):
        limits.check()
        sections.extend(_page_sections(page, number))
    first_heading = next((s.text for s in sections if s.block_type == "heading"), "")
    doc_title = _meta_title(document) or first_heading or title
    return ParsedDocument(doc_title, ODP_TYPE, sections)
