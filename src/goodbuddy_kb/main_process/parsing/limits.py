"""The limits every parser works under: time, cancel, archive sizes, page and node counts.

A sync sets a budget around each file (``budget(cancel)``); parsers call ``check()`` inside
their loops, so a hostile file ends as a per-file failure after its time, and a cancel ends the
parse of the file in progress. Without a budget set, ``parse`` makes one with the default time.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

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
#: PDF pages read from one file.
MAX_PDF_PAGES = 3_000
#: HTML elements in one page, and the deepest nesting looked through.
MAX_HTML_NODES = 300_000
MAX_HTML_DEPTH = 512
#: Blocks (paragraphs, table cells) read from one Word document.
MAX_DOCX_BLOCKS = 400_000


@dataclass
class Budget:
    deadline: float
    cancel: CancelToken | None = None
    seconds: float = PARSE_SECONDS

    def check(self) -> None:
        if self.cancel is not None:
            self.cancel.check()
        if time.monotonic() > self.deadline:
            raise ParseError(f"parsing took longer than {self.seconds:.0f} s")


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
