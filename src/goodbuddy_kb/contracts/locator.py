"""Where a chunk sits in its document: the typed reading of the locator the chunkers write.

On the wire (and in the database) a locator stays the camelCase dict the backend produces —
``page``/``pageEnd`` (PDF pages), ``slide``/``slideEnd`` (presentations), ``lineStart``/``lineEnd``
(text formats), ``sheet`` and ``rowStart``/``rowEnd`` (spreadsheets: the sheet's name, none for
CSV), ``headingPath``, ``chapter`` (an e-book's chapter title), ``message`` (the subject of the e-mail
an attachment came from), ``ocr`` (text recognised from a
scan) and ``lowConfidence`` (its doubtful OCR lines). Readers
take it through ``Locator.from_wire``, which keeps what it understands and skips the rest, so an
odd or newer key never breaks a screen. How a locator reads to people is the GUI's business
(``ui/widgets/locator.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from goodbuddy_kb.contracts.base import ContractModel


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _texts(value: Any) -> list[str]:
    return [str(x) for x in value] if isinstance(value, list) else []


class Locator(ContractModel):
    """Page range, slide range, line range, sheet and row range, heading path and OCR provenance
    of one chunk."""

    page: int | None = None
    page_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    slide: int | None = None
    slide_end: int | None = None
    sheet: str | None = None
    row_start: int | None = None
    row_end: int | None = None
    heading_path: list[str] = Field(default_factory=list)
    #: The e-book chapter the chunk is in (its title).
    chapter: str | None = None
    #: The subject of the message the chunk's document was attached to (an e-mail attachment).
    message: str | None = None
    ocr: bool = False
    #: The chunk's OCR lines recognised with low confidence (worth checking against the page).
    low_confidence: list[str] = Field(default_factory=list)

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any] | None) -> Locator:
        """The locator in ``wire`` (a chunker's dict); missing or malformed keys are left out."""
        if not wire:
            return cls()
        return cls(
            page=_number(wire.get("page")),
            page_end=_number(wire.get("pageEnd")),
            line_start=_number(wire.get("lineStart")),
            line_end=_number(wire.get("lineEnd")),
            slide=_number(wire.get("slide")),
            slide_end=_number(wire.get("slideEnd")),
            sheet=wire["sheet"] if isinstance(wire.get("sheet"), str) else None,
            row_start=_number(wire.get("rowStart")),
            row_end=_number(wire.get("rowEnd")),
            heading_path=_texts(wire.get("headingPath")),
            chapter=_text(wire.get("chapter")),
            message=_text(wire.get("message")),
            ocr=bool(wire.get("ocr")),
            low_confidence=[line for line in _texts(wire.get("lowConfidence")) if line.strip()],
        )

    @property
    def last_page(self) -> int | None:
        """The page the chunk ends on (its first page when it fits on one)."""
        return self.page_end if self.page_end is not None else self.page

    @property
    def last_slide(self) -> int | None:
        """The slide the chunk ends on (its first slide when it fits on one)."""
        return self.slide_end if self.slide_end is not None else self.slide

    @property
    def last_line(self) -> int | None:
        """The line the chunk ends on (its first line when it is one line)."""
        return self.line_end if self.line_end is not None else self.line_start

    @property
    def last_row(self) -> int | None:
        """The sheet row the chunk ends on (its first row when it is one row)."""
        return self.row_end if self.row_end is not None else self.row_start
