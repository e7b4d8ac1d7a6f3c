"""What every parser yields: a document title and ordered sections with locators."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

BlockType = Literal["heading", "paragraph", "list", "table", "code", "quote"]


@dataclass(frozen=True)
class Locator:
    """Where a piece of text came from: page (PDF), slide (presentations), sheet and row range
    (spreadsheets), heading path and line range (text formats), chapter (EPUB)."""

    page: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    chapter: str | None = None
    slide: int | None = None
    sheet: str | None = None
    row_start: int | None = None
    row_end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in (
                ("page", self.page),
                ("lineStart", self.line_start),
                ("lineEnd", self.line_end),
                ("chapter", self.chapter),
                ("slide", self.slide),
                ("sheet", self.sheet),
                ("rowStart", self.row_start),
                ("rowEnd", self.row_end),
            )
            if v is not None
        }


@dataclass(frozen=True)
class Section:
    text: str
    block_type: BlockType
    heading_path: tuple[str, ...] = ()
    locator: Locator = field(default_factory=Locator)
    #: For tables: how many leading lines form the header repeated on every piece.
    header_lines: int = 0
    #: For spreadsheet tables: the sheet row number of each body line (after the header), so
    #: every piece the chunker cuts locates its own rows.
    row_numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class ParsedDocument:
    title: str
    media_type: str
    sections: list[Section]
    #: Pages (1-based) with no usable text of their own: the OCR stage reads them. For an
    #: image, every frame is a page.
    ocr_pages: tuple[int, ...] = ()
    #: Pages the document has (PDF pages, image frames); 0 when the format has no pages.
    page_count: int = 0
    #: What a person should know about what was left out (coded reasons: hidden sheets).
    notes: tuple[str, ...] = ()
    #: Files attached to a message, in a type the backend reads: each becomes a document of its
    #: own (the sync engine parses it), never a part of this one.
    attachments: tuple[Attachment, ...] = ()
    #: For an e-mail attachment's document, the subject of the message it came with: every
    #: chunk's locator names it (``message``), pages read later by OCR included.
    message: str | None = None


@dataclass(frozen=True)
class Attachment:
    """One attached file of a message: its name (unique within the message's file), its bytes
    and the subject of the message that carries it."""

    name: str
    data: bytes
    message: str


class ParseError(Exception):
    """The file cannot become a document; ``reason`` is shown to the user as it is."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
