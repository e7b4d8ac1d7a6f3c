"""PDF (text per page, page locators) and DOCX (headings, paragraphs, tables)."""

from __future__ import annotations

import io
import logging

from goodbuddy_kb.main_process.parsing.model import (
    BlockType,
    Locator,
    ParsedDocument,
    ParseError,
    Section,
)
from goodbuddy_kb.main_process.parsing.text import paragraphs

logging.getLogger("pypdf").setLevel(logging.ERROR)


def parse_pdf(data: bytes, title: str) -> ParsedDocument:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ParseError("the PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except ParseError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, AssertionError) as exc:
        raise ParseError(f"the PDF could not be read ({exc.__class__.__name__})") from exc
    sections = [
        Section(body, "paragraph", (), Locator(page=number))
        for number, page_text in enumerate(pages, start=1)
        for body, _a, _b in paragraphs(page_text)
    ]
    if not sections:
        raise ParseError("the PDF has no extractable text (scanned pages need OCR)")
    return ParsedDocument(str(meta_title).strip() or title, "application/pdf", sections)


def parse_docx(data: bytes, title: str) -> ParsedDocument:
    import zipfile

    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ParseError(f"the Word document could not be read ({exc.__class__.__name__})") from exc
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    doc_title = (document.core_properties.title or "").strip()
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            style = (item.style.name if item.style is not None else "") or ""
            if style.startswith("Heading") or style == "Title":
                digits = style.removeprefix("Heading").strip()
                level = int(digits) if digits.isdigit() else 1
                while path and path[-1][0] >= level:
                    path.pop()
                path.append((level, text))
                doc_title = doc_title or text
                sections.append(Section(text, "heading", tuple(h for _, h in path)))
            else:
                block: BlockType = "list" if "List" in style else "paragraph"
                sections.append(Section(text, block, tuple(h for _, h in path)))
        elif isinstance(item, Table):
            rows = []
            for row in item.rows:
                cells = [" ".join(cell.text.split()) for cell in row.cells]
                if any(cells):
                    rows.append("| " + " | ".join(cells) + " |")
            if rows:
                sections.append(
                    Section("\n".join(rows), "table", tuple(h for _, h in path), header_lines=1)
                )
    return ParsedDocument(
        doc_title or title,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        sections,
    )
