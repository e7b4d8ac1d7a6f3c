"""RTF documents, read with striprtf: the text, one paragraph per ``\\par``.

Chinese text arrives two ways and both are decoded: ``\\'xx`` byte escapes in the document's ANSI
code page (``\\ansicpg936``) or its font's charset (``\\fcharset134``), and ``\\uN?`` Unicode
escapes. The file's raw bytes are read in that same code page, so unescaped 8-bit text (which
some writers leave) reads as the author's program showed it.
"""

from __future__ import annotations

import codecs
import re

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import ParsedDocument, ParseError, Section

MEDIA_TYPE = "application/rtf"
_CODE_PAGE = re.compile(rb"\\ansicpg(\d{1,5})")


def code_page(data: bytes) -> str:
    """The document's ANSI code page (``\\ansicpgN`` in its header), cp1252 when absent or
    unknown to Python."""
    match = _CODE_PAGE.search(data[:4096])
    if match is None:
        return "cp1252"
    name = f"cp{int(match.group(1))}"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


def parse_rtf(data: bytes, title: str) -> ParsedDocument:
    from striprtf.striprtf import rtf_to_text

    if not data.lstrip().startswith(b"{\\rtf"):
        raise ParseError("the RTF document could not be read (no RTF header)")
    encoding = code_page(data)
    try:
        source = data.decode(encoding, errors="replace")
        text: str = rtf_to_text(source, encoding, errors="replace")  # type: ignore[no-untyped-call]
    except (LookupError, ValueError, IndexError) as exc:
        raise ParseError(f"the RTF document could not be read ({exc.__class__.__name__})") from exc
    sections: list[Section] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if number % 4096 == 0:
            limits.check()
        paragraph = " ".join(line.split())
        if paragraph:
            limits.produce(sections=1, characters=len(paragraph))
            sections.append(Section(paragraph, "paragraph"))
    return ParsedDocument(title, MEDIA_TYPE, sections)
