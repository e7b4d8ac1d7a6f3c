"""The limits every parser works under: time, cancel, archive sizes, page and node counts, and
the size of what a parse produces.

A sync sets a budget around each file (``budget(cancel)``); parsers call ``check()`` inside
their loops, so a hostile file ends as a per-file failure after its time, and a cancel ends the
parse of the file in progress. Without a budget set, ``parse`` makes one with the default time.

Time does not bound memory (a 1 MB Markdown table of 5,000 columns takes 700 MB in 13 s), so
parsers also report what they produce — table cells and columns, sections, characters — with
``produce()`` (or ``check_table()`` before a table is expanded); past a limit the file fails
alone with "the file is too large to parse: N table cells; the limit is M".
"""

from __future__ import annotations

import contextlib
import contextvars
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.parsing.model import ParseError

#: Seconds one file may take to parse.
PARSE_SECONDS = 30.0
#: ZIP containers (DOCX): members, one member's and all members' uncompressed bytes, and the
#: largest expansion ratio of a member past 1 MB (text XML compresses 5–20×; bombs 1,000×).
MAX_ZIP_MEMBERS = 2_000
MAX_ZIP_MEMBER_BYTES = 40 * 1024 * 1024
MAX_ZIP_TOTAL_BYTES = 120 * 1024 * 1024
MAX_ZIP_RATIO = 120
#: Attachments one e-mail file (a message or a whole mailbox) yields as documents of their own.
MAX_ATTACHMENTS = 200
#: PDF pages read from one file.
MAX_PDF_PAGES = 3_000
#: HTML elements in one page, and the deepest nesting looked through.
MAX_HTML_NODES = 300_000
MAX_HTML_DEPTH = 512
#: Blocks (paragraphs, table cells) read from one Word document.
MAX_DOCX_BLOCKS = 400_000
#: Slides read from one presentation (PPTX, ODP).
MAX_SLIDES = 1_000
#: An OpenDocument's body (content.xml) as it expands: odfpy keeps a Python object per node.
MAX_ODF_CONTENT_BYTES = 12 * 1024 * 1024
#: What one document may produce: table cells (all tables), columns of one table, sections
#: (paragraphs, list items, tables, headings) and characters of text. A parser's working
#: memory grows with these (markdown-it: ~1 KB per cell), the file's size does not bound them.
MAX_TABLE_CELLS = 100_000
MAX_TABLE_COLUMNS = 2_000
MAX_SECTIONS = 300_000
MAX_CHARACTERS = 64_000_000

#: What the counts are called in the reason (each has its own message code).
LIMITS = {
    "table cells": MAX_TABLE_CELLS,
    "sections": MAX_SECTIONS,
    "characters": MAX_CHARACTERS,
}


def too_large(count: int, what: str, limit: int) -> ParseError:
    """The coded refusal of a document that produces more ``what`` than ``limit``."""
    return ParseError(f"the file is too large to parse: {count} {what}; the limit is {limit}")


@dataclass
class Budget:
    deadline: float
    cancel: CancelToken | None = None
    seconds: float = PARSE_SECONDS
    produced: dict[str, int] = field(default_factory=dict)

    def check(self) -> None:
        if self.cancel is not None:
            self.cancel.check()
        if time.monotonic() > self.deadline:
            raise ParseError(f"parsing took longer than {self.seconds:.0f} s")

    def produce(self, what: str, count: int) -> None:
        total = self.produced.get(what, 0) + count
        self.produced[what] = total
        if total > LIMITS[what]:
            raise too_large(total, what, LIMITS[what])


_current: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "parse_budget", default=None
)


@contextlib.contextmanager
def budget(cancel: CancelToken | None = None, seconds: float | None = None) -> Iterator[Budget]:
    """Parse under a time budget and a cancel token (nested calls keep the outer budget)."""
    seconds = PARSE_SECONDS if seconds is None else seconds
    outer = _current.get()
    if outer is not None:
        yield outer
        return
    active = Budget(time.monotonic() + seconds, cancel, seconds)
    token = _current.set(active)
    try:
        yield active
    finally:
        _current.reset(token)


def check() -> None:
    """Raise ParseError past the time budget, CancelledError on cancel; cheap otherwise."""
    active = _current.get()
    if active is not None:
        active.check()


def produce(sections: int = 0, characters: int = 0, cells: int = 0) -> None:
    """Count what the parse produced so far against the document's limits (ParseError past
    one); every 256th section also checks time and cancel."""
    active = _current.get()
    if active is None:
        return
    if cells:
        active.produce("table cells", cells)
    if characters:
        active.produce("characters", characters)
    if sections:
        before = active.produced.get("sections", 0)
        active.produce("sections", sections)
        if before // 256 != (before + sections) // 256:
            active.check()


def check_table(columns: int, rows: int) -> None:
    """Before a table of ``columns`` × ``rows`` is expanded: refuse too many columns, and count
    its cells against the document's limit."""
    if columns > MAX_TABLE_COLUMNS:
        raise too_large(columns, "table columns", MAX_TABLE_COLUMNS)
    produce(cells=columns * rows)


def check_zip(archive: zipfile.ZipFile) -> None:
    """Refuse an archive whose directory announces too much (members, sizes, ratio), then
    decompress every member in bounded steps to check the sizes it really expands to."""
    members = archive.infolist()
    if len(members) > MAX_ZIP_MEMBERS:
        raise ParseError(f"the archive has too many parts ({len(members)})")
    declared = 0
    for info in members:
        declared += info.file_size
        _check_member(info.filename, info.file_size, info.compress_size)
        if declared > MAX_ZIP_TOTAL_BYTES:
            raise ParseError(_total_message())
    actual = 0
    for info in members:
        if info.is_dir():
            continue
        size = 0
        try:
            with archive.open(info) as member:
                while chunk := member.read(1024 * 1024):
                    size += len(chunk)
                    actual += len(chunk)
                    _check_member(info.filename, size, info.compress_size)
                    if actual > MAX_ZIP_TOTAL_BYTES:
                        raise ParseError(_total_message())
                    check()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
            raise ParseError(f"the archive is damaged ({exc.__class__.__name__})") from exc


def _check_member(name: str, size: int, compressed: int) -> None:
    if size > MAX_ZIP_MEMBER_BYTES:
        raise ParseError(
            f"a part of the archive expands past {MAX_ZIP_MEMBER_BYTES // 1048576} MB ({name[:60]})"
        )
    if size > 1024 * 1024 and size > MAX_ZIP_RATIO * max(compressed, 1):
        raise ParseError(f"a part of the archive expands more than {MAX_ZIP_RATIO}× (a zip bomb?)")


def _total_message() -> str:
    return f"the archive expands past {MAX_ZIP_TOTAL_BYTES // 1048576} MB"
