"""EPUB: the chapters in spine order, each read by the HTML parser, with the chapter's title as
the locator of every section in it.

The archive is checked against the ZIP limits (members, sizes, expansion ratio — from the
directory and while reading) before any part of it is read. The package is read here (the
container names the package document; its manifest and spine give the chapters in reading
order), its XML with lxml's parser that resolves no entity, loads no DTD and reaches no network.
A chapter's title is its entry in the table of contents (the EPUB 3 navigation document, else
the EPUB 2 NCX), else its first heading, else its file name. (EbookLib read it before: its
AGPL licence does not fit an app shipped under other terms.)
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from dataclasses import replace
from urllib.parse import unquote

from lxml import etree

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.html import parse_html
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section

MEDIA_TYPE = "application/epub+zip"
#: Media types of a spine item read as a chapter.
CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html"})
NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ncx": "http://www.daisy.org/z3986/2005/ncx/",
    "x": "http://www.w3.org/1999/xhtml",
}
_EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
_XHTML, _NCX = f"{{{NS['x']}}}", f"{{{NS['ncx']}}}"


class _Unreadable(Exception):
    """The package is not a readable EPUB (a part missing or malformed)."""


def _unreadable(exc: Exception) -> ParseError:
    why = str(exc) if isinstance(exc, _Unreadable) else exc.__class__.__name__
    return ParseError(f"the e-book could not be read ({why})")


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _xml(archive: zipfile.ZipFile, name: str) -> etree._Element:
    try:
        root = etree.fromstring(archive.read(name), _parser())
        # an entity left unresolved is dropped, not read as its own "&name;" text
        etree.strip_elements(root, etree.Entity, with_tail=False)
        return root
    except KeyError:
        raise _Unreadable(f"no {name[:60]}") from None
    except etree.XMLSyntaxError as exc:
        raise _unreadable(exc) from exc


def _inside(base: str, href: str) -> str:
    """A manifest or table-of-contents reference as the archive names the part."""
    return posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0])))


def _text(element: etree._Element) -> str:
    return " ".join("".join(element.itertext()).split())


def _nav_titles(archive: zipfile.ZipFile, path: str, titles: dict[str, str]) -> None:
    """The EPUB 3 navigation document's table of contents: part → its first title."""
    document = _xml(archive, path)
    navs = list(document.iter(_XHTML + "nav"))
    toc = [n for n in navs if "toc" in (n.get(_EPUB_TYPE) or "").split()] or navs[:1]
    for nav in toc:
        for link in nav.iter(_XHTML + "a"):
            limits.check()
            href, title = link.get("href") or "", _text(link)
            if href.split("#", 1)[0] and title:
                titles.setdefault(_inside(posixpath.dirname(path), href), title)


def _ncx_titles(archive: zipfile.ZipFile, path: str, titles: dict[str, str]) -> None:
    """The EPUB 2 NCX's navigation points: part → its first title."""
    document = _xml(archive, path)
    for point in document.iter(_NCX + "navPoint"):
        limits.check()
        label = point.find("ncx:navLabel/ncx:text", NS)
        content = point.find("ncx:content", NS)
        src = content.get("src") if content is not None else None
        if label is not None and src and src.split("#", 1)[0] and _text(label):
            titles.setdefault(_inside(posixpath.dirname(path), src), _text(label))


def _chapter(content: bytes, name: str, toc: dict[str, str]) -> list[Section]:
    if not content or not content.strip():
        return []
    document = parse_html(content, name)
    headings = [s.text for s in document.sections if s.block_type == "heading"]
    stem = posixpath.splitext(posixpath.basename(name))[0]
    title = toc.get(name) or (headings[0] if headings else "") or stem
    return [replace(s, locator=Locator(chapter=title)) for s in document.sections]


def _book(archive: zipfile.ZipFile, title: str) -> ParsedDocument:
    limits.check_zip(archive)
    rootfile = _xml(archive, "META-INF/container.xml").find(".//c:rootfile", NS)
    package = rootfile.get("full-path") if rootfile is not None else None
    if not package:
        raise _Unreadable("no package document")
    opf = _xml(archive, package)
    base = posixpath.dirname(package)
    manifest = {
        item.get("id"): item
        for item in opf.iterfind("opf:manifest/opf:item", NS)
        if item.get("id") and item.get("href")
    }
    toc: dict[str, str] = {}
    for item in manifest.values():
        if "nav" in (item.get("properties") or "").split():
            _nav_titles(archive, _inside(base, item.get("href", "")), toc)
    spine = opf.find("opf:spine", NS)
    ncx = manifest.get(spine.get("toc")) if spine is not None else None
    if ncx is not None:
        _ncx_titles(archive, _inside(base, ncx.get("href", "")), toc)
    sections: list[Section] = []
    for itemref in opf.iterfind("opf:spine/opf:itemref", NS):
        limits.check()
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type") not in CHAPTER_TYPES:
            continue
        name = _inside(base, item.get("href", ""))
        try:
            content = archive.read(name)
        except KeyError:
            continue  # a chapter the manifest names and the archive lacks
        sections.extend(_chapter(content, name, toc))
    named = opf.find("opf:metadata/dc:title", NS)
    book_title = _text(named) if named is not None else ""
    return ParsedDocument(book_title or title, MEDIA_TYPE, sections)


def parse_epub(data: bytes, title: str) -> ParsedDocument:
    """Parse an EPUB 2 or 3 book."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return _book(archive, title)
    except ParseError:
        raise
    except RecursionError:
        raise ParseError("the file is nested too deeply to parse") from None
    except (zipfile.BadZipFile, _Unreadable, ValueError, OSError) as exc:
        raise _unreadable(exc) from exc
