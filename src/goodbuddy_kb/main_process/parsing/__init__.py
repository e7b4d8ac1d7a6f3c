"""Parsers: bytes of a supported file → a ParsedDocument of sections, or a ParseError.

The registry maps file suffixes to parsers. Size and emptiness are checked here, once, and
here every parser failure of any kind (a library's XML error, a recursion, memory) becomes a
ParseError with a short reason: one bad file never ends a sync. Parsers run under the time and
cancel budget of ``limits``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import PurePath

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.contracts.formats import REFUSED_FORMATS
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.delimited import parse_csv, parse_tsv
from goodbuddy_kb.main_process.parsing.epub import parse_epub
from goodbuddy_kb.main_process.parsing.html import parse_html
from goodbuddy_kb.main_process.parsing.image import MEDIA_TYPES as IMAGE_TYPES
from goodbuddy_kb.main_process.parsing.image import make_image_parser
from goodbuddy_kb.main_process.parsing.mail import make_email_parser, make_mbox_parser
from goodbuddy_kb.main_process.parsing.markdown import parse_markdown
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section
from goodbuddy_kb.main_process.parsing.office import parse_docx, parse_pdf
from goodbuddy_kb.main_process.parsing.opendocument import parse_odp, parse_odt
from goodbuddy_kb.main_process.parsing.rtf import parse_rtf
from goodbuddy_kb.main_process.parsing.sheets import parse_ods, parse_xlsx
from goodbuddy_kb.main_process.parsing.slides import parse_pptx
from goodbuddy_kb.main_process.parsing.text import parse_text

log = logging.getLogger(__name__)

#: Largest file the parsers accept.
MAX_FILE_BYTES = 50 * 1024 * 1024

Parser = Callable[[bytes, str], ParsedDocument]
PARSERS: dict[str, Parser] = {
    ".txt": parse_text,
    ".text": parse_text,
    ".md": parse_markdown,
    ".markdown": parse_markdown,
    ".html": parse_html,
    ".htm": parse_html,
    ".pdf": parse_pdf,
    ".docx": parse_docx,
    ".pptx": parse_pptx,
    ".odp": parse_odp,
    ".odt": parse_odt,
    ".rtf": parse_rtf,
    ".xlsx": parse_xlsx,
    ".xlsm": parse_xlsx,
    ".ods": parse_ods,
    ".csv": parse_csv,
    ".tsv": parse_tsv,
    **{suffix: make_image_parser(suffix) for suffix in IMAGE_TYPES},
    ".epub": parse_epub,
}


def old_format(suffix: str) -> Reason | None:
    """Why a file of an old binary Office format is not read, with the way out (None for any
    other suffix): a folder's such file fails with it, and adding one as a source is refused
    with it (``handlers/sources``)."""
    for old, name, target in REFUSED_FORMATS:
        if old == suffix:
            return Reason("parse.old_format", name=name, suffix=suffix, target=target)
    return None


def refused(suffix: str) -> Parser:
    """The binary Word, PowerPoint and Excel 97–2003 formats have no well-kept reader that fits
    the budgets: refused with the way out."""
    reason = old_format(suffix)
    assert reason is not None

    def parse_old(_data: bytes, _title: str) -> ParsedDocument:
        raise ParseError(reason)

    return parse_old


PARSERS.update({suffix: refused(suffix) for suffix, _name, _target in REFUSED_FORMATS})
# A message reads its attachments through the registry, so every format registered is read there.
PARSERS[".eml"] = make_email_parser(PARSERS.get)
PARSERS[".mbox"] = make_mbox_parser(PARSERS.get)
SUPPORTED_SUFFIXES = frozenset(PARSERS)


EMPTY_FILE = "empty file"
NO_TEXT = "no text content"
ONLY_HEADINGS = "only headings, no text under them"
#: Failures that the bytes alone decide: the same bytes fail the same way again, so a sync does
#: not read them again until the file changes (a rebuild still does).
INHERENT_FAILURES = frozenset({EMPTY_FILE, NO_TEXT, ONLY_HEADINGS})


def parse(data: bytes, name: str, parser: Parser | None = None) -> ParsedDocument:
    """Parse ``data`` named ``name`` (the suffix picks the parser unless one is given)."""
    if len(data) > MAX_FILE_BYTES:
        raise ParseError(
            f"file too large ({len(data) / 1048576:.1f} MB; the limit is {MAX_FILE_BYTES // 1048576} MB)"
        )
    if not data.strip():
        raise ParseError(EMPTY_FILE)
    chosen = parser or PARSERS.get(PurePath(name).suffix.lower())
    if chosen is None:
        raise ParseError(f"unsupported file type “{PurePath(name).suffix}”")
    with limits.budget():
        try:
            document = chosen(data, readable_path(PurePath(name).stem or name))
        except (ParseError, CancelledError):
            raise
        except MemoryError:
            raise ParseError("the file needs too much memory to parse") from None
        except RecursionError:
            raise ParseError("the file is nested too deeply to parse") from None
        except Exception as exc:
            log.info("parser failure on a %s file: %s", PurePath(name).suffix, type(exc).__name__)
            raise ParseError(f"the file could not be parsed ({exc.__class__.__name__})") from None
    if not document.ocr_pages and not any(
        s.text.strip() for s in document.sections if s.block_type != "heading"
    ):
        # a note that is only its title ("# 待办事项") says so: "no text content" read as if
        # the file had been read wrong
        headings = any(s.text.strip() for s in document.sections)
        raise ParseError(ONLY_HEADINGS if headings else NO_TEXT)
    return document


__all__ = [
    "INHERENT_FAILURES",
    "MAX_FILE_BYTES",
    "PARSERS",
    "SUPPORTED_SUFFIXES",
    "Locator",
    "ParseError",
    "ParsedDocument",
    "Section",
    "parse",
]
