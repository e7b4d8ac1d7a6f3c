"""PDF (text per page, page locators) and DOCX (headings, paragraphs, tables)."""

from __future__ import annotations

import io
import logging
import re

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import (
    BlockType,
    Locator,
    ParsedDocument,
    ParseError,
    Section,
)
from goodbuddy_kb.main_process.parsing.text import paragraphs

logging.getLogger("pypdf").setLevel(logging.ERROR)


#: Runs of spaces and tabs in a PDF's text layer: a writer that places each word on its own
#: (Qt's QPdfWriter) comes out of pypdf with a tab between every two words, which the chunk
#: view and the context given to a chat model showed as tab stops ("2.  Fees  and  Payment";
#: a helper's try). A PDF's tabs hold no columns pypdf keeps: one space.
_SPACING = re.compile(r"[ \t]*\t[ \t]*")


def _spaced(text: str) -> str:
    return _SPACING.sub(" ", text) if "\t" in text else text


def parse_pdf(data: bytes, title: str) -> ParsedDocument:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ParseError("the PDF is encrypted")
        count = len(reader.pages)
        if count > limits.MAX_PDF_PAGES:
            raise ParseError(
                f"the PDF has too many pages ({count}; at most {limits.MAX_PDF_PAGES})"
            )
        pages = []
        for page in reader.pages:
            limits.check()
            pages.append(_spaced(page.extract_text() or ""))
            limits.produce(characters=len(pages[-1]))
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except ParseError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, AssertionError) as exc:
        raise ParseError(f"the PDF could not be read ({exc.__class__.__name__})") from exc
    usable = [usable_text(text) for text in pages]
    sections = [
        Section(body, "paragraph", (), Locator(page=number))
        for number, page_text in enumerate(pages, start=1)
        if usable[number - 1]
        for body, _a, _b in paragraphs(page_text)
    ]
    ocr_pages = tuple(n for n, ok in enumerate(usable, start=1) if not ok)
    if not sections and not ocr_pages:
        raise ParseError("the PDF has no pages")
    return ParsedDocument(
        str(meta_title).strip() or title,
        "application/pdf",
        sections,
        ocr_pages=ocr_pages,
        page_count=len(pages),
    )


#: A page's text layer with fewer meaningful characters than this is treated as absent.
MIN_PAGE_CHARS = 8


def usable_text(text: str) -> bool:
    """A text layer worth keeping: enough letters, digits or CJK characters, and not mostly
    replacement characters, private-use glyph codes or ``(cid:NN)`` escapes (what a scan's
    invisible or broken font layer yields)."""
    import unicodedata

    cleaned = re.sub(r"\(cid:\d+\)", "\ufffd", text)
    meaningful = bad = 0
    for char in cleaned:
        if char.isspace():
            continue
        category = unicodedata.category(char)
        if char == "\ufffd" or category in ("Co", "Cc", "Cs", "Cn"):
            bad += 1
        elif category[0] in "LN":
            meaningful += 1
    return meaningful >= MIN_PAGE_CHARS and bad <= 0.3 * (meaningful + bad)


def parse_docx(data: bytes, title: str) -> ParsedDocument:
    import zipfile

    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            limits.check_zip(archive)
        document = Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ParseError(f"the Word document could not be read ({exc.__class__.__name__})") from exc
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    doc_title = (document.core_properties.title or "").strip()
    style_names = {s.style_id: s.name or "" for s in document.styles}
    blocks = 0
    for item in document.iter_inner_content():
        blocks += 1
        if blocks % 256 == 0:
            limits.check()
            if blocks > limits.MAX_DOCX_BLOCKS:
                raise ParseError("the Word document has too many paragraphs and tables")
        if isinstance(item, Paragraph):
            text = item.text.strip()
            if not text:
                continue
            # Paragraph.style looks the style up through the styles part on every call (2 ms
            # each: minutes for a long document); one table of names by id is enough.
            style_id = item._p.style
            style = style_names.get(style_id, "") if style_id else ""
            if style.startswith("Heading") or style == "Title":
                digits = style.removeprefix("Heading").strip()
                level = int(digits) if digits.isdigit() else 1
                while path and path[-1][0] >= level:
                    path.pop()
                path.append((level, text))
                doc_title = doc_title or text
                sections.append(Section(text, "heading", tuple(h for _, h in path)))
                limits.produce(sections=1, characters=len(text))
            else:
                block: BlockType = "list" if "List" in style else "paragraph"
                sections.append(Section(text, block, tuple(h for _, h in path)))
                limits.produce(sections=1, characters=len(text))
        elif isinstance(item, Table):
            rows = []
            for row in item.rows:
                limits.check()
                limits.check_table(sum(tc.grid_span for tc in row._tr.tc_lst), 1)
                cells = [" ".join(cell.text.split()) for cell in row.cells]
                if any(cells):
                    rows.append("| " + " | ".join(cells) + " |")
            if rows:
                limits.produce(sections=1, characters=sum(len(r) for r in rows))
                sections.append(
                    Section("\n".join(rows), "table", tuple(h for _, h in path), header_lines=1)
                )
    return ParsedDocument(
        doc_title or title,
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        sections,
    )
