"""Decoding bytes to text (in the encoding ``encoding.detect`` finds evidence for) and plain text."""

from __future__ import annotations

import re

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.encoding import detect, has_bom
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section


def decode(data: bytes, declared: str | None = None) -> str:
    """Text from bytes in the encoding the evidence shows (``encoding.detect``; ``declared``:
    a charset the file itself declares), refusing binary content with a readable reason."""
    encoding = detect(data, declared)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        if has_bom(data):
            raise ParseError(f"text is not valid {encoding}") from exc
        # The sample read as one encoding, the rest does not: decide on the whole file.
        encoding = detect(data, declared, sample_bytes=len(data))
        text = data.decode(encoding, errors="replace")
    return _text_or_refusal(text)


#: Share of control, replacement and private-use characters above which a decoding is taken to
#: be binary data (real text, even in a legacy encoding, stays far below).
MAX_NOISE_SHARE = 0.02
_NOISE = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ufffd\ue000-\uf8ff\ud800-\udfff]")


def _text_or_refusal(text: str) -> str:
    sample = text[:200_000]
    if len(_NOISE.findall(sample)) > MAX_NOISE_SHARE * len(sample):
        raise ParseError("binary content, not text")
    return text


def paragraphs(text: str) -> list[tuple[str, int, int]]:
    """Blank-line separated paragraphs with their 1-based first and last line numbers, each
    counted against the document's section and character limits as it is made."""
    out: list[tuple[str, int, int]] = []
    block: list[str] = []
    start = 0

    def add(end: int) -> None:
        body = "\n".join(block)
        limits.produce(sections=1, characters=len(body))
        out.append((body, start, end))

    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line.rstrip())
        elif block:
            add(number - 1)
            block = []
    if block:
        add(start + len(block) - 1)
    return out


def parse_text(data: bytes, title: str) -> ParsedDocument:
    text = decode(data)
    sections = [
        Section(body, "paragraph", (), Locator(line_start=a, line_end=b))
        for body, a, b in paragraphs(text)
    ]
    return ParsedDocument(title, "text/plain", sections)
