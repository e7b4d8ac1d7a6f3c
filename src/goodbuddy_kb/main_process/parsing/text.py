"""Decoding bytes to text (UTF-8, UTF-16 with BOM, GB18030, detected others) and plain text."""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode(data: bytes) -> str:
    """Text from bytes, refusing binary content with a readable reason."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                raise ParseError(f"text is not valid {encoding}") from exc
    if b"\x00" in data[:8192]:
        raise ParseError("binary content, not text")
    for encoding in ("utf-8", "gb18030"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return _text_or_refusal(text)
    best = from_bytes(data[:1_000_000]).best()
    if best is None or best.encoding is None:
        raise ParseError("unknown text encoding")
    return _text_or_refusal(data.decode(best.encoding, errors="replace"))


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
    """Blank-line separated paragraphs with their 1-based first and last line numbers."""
    out: list[tuple[str, int, int]] = []
    block: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line.rstrip())
        elif block:
            out.append(("\n".join(block), start, number - 1))
            block = []
    if block:
        out.append(("\n".join(block), start, start + len(block) - 1))
    return out


def parse_text(data: bytes, title: str) -> ParsedDocument:
    text = decode(data)
    sections = [
        Section(body, "paragraph", (), Locator(line_start=a, line_end=b))
        for body, a, b in paragraphs(text)
    ]
    return ParsedDocument(title, "text/plain", sections)
