"""EPUB: the chapters in spine order, each read by the HTML parser, with the chapter's title as
the locator of every section in it.

The archive is checked against the ZIP limits (members, sizes, expansion ratio — from the
directory and while reading) before ebooklib opens it. A chapter's title is its entry in the
table of contents, else its first heading, else its file name.
"""

from __future__ import annotations

import io
import posixpath
import warnings
import zipfile
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.html import parse_html
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section

MEDIA_TYPE = "application/epub+zip"


def _unreadable(exc: Exception) -> ParseError:
    return ParseError(f"the e-book could not be read ({exc.__class__.__name__})")


def _read_book(data: bytes) -> Any:
    import ebooklib
    from ebooklib import epub

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            limits.check_zip(archive)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except ParseError:
        raise
    except (zipfile.BadZipFile, ebooklib.epub.EpubException, KeyError, ValueError) as exc:
        raise _unreadable(exc) from exc
    except (AttributeError, IndexError, TypeError, OSError) as exc:
        raise _unreadable(exc) from exc


def _toc_titles(entries: Iterable[Any], titles: dict[str, str]) -> dict[str, str]:
    """href (without its fragment) → the first title the table of contents gives it."""
    from ebooklib import epub

    for entry in entries:
        limits.check()
        if isinstance(entry, tuple | list) and entry:
            _toc_titles(entry[:1], titles)
            if len(entry) > 1:
                _toc_titles(entry[1], titles)
            continue
        if isinstance(entry, epub.Link | epub.Section):
            href = (entry.href or "").split("#", 1)[0]
            if href and entry.title and entry.title.strip():
                titles.setdefault(posixpath.normpath(href), " ".join(entry.title.split()))
    return titles


def _chapter(item: Any, toc: dict[str, str]) -> list[Section]:
    content = item.get_content()
    if not content or not content.strip():
        return []
    document = parse_html(content, item.get_name())
    name = posixpath.normpath(item.get_name())
    headings = [s.text for s in document.sections if s.block_type == "heading"]
    stem = posixpath.splitext(posixpath.basename(name))[0]
    title = toc.get(name) or (headings[0] if headings else "") or stem
    return [replace(s, locator=Locator(chapter=title)) for s in document.sections]


def parse_epub(data: bytes, title: str) -> ParsedDocument:
    """Parse an EPUB 2 or 3 book."""
    import ebooklib

    book = _read_book(data)
    try:
        toc = _toc_titles(book.toc or [], {})
    except RecursionError:
        raise ParseError("the file is nested too deeply to parse") from None
    sections: list[Section] = []
    for idref, *_linear in book.spine:
        limits.check()
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        sections.extend(_chapter(item, toc))
    metadata = book.get_metadata("DC", "title")
    book_title = str(metadata[0][0]).strip() if metadata and metadata[0] else ""
    return ParsedDocument(book_title or title, MEDIA_TYPE, sections)
