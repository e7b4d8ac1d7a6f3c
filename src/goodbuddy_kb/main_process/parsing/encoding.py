"""Which encoding a text file is in, decided on evidence, never by the first codec that fits.

In order: a byte-order mark; a declared charset (a web page's HTTP ``Content-Type``, which
``sync.web`` turns into a UTF-8 BOM, or an HTML ``<meta charset>``); strict UTF-8; UTF-16
without a BOM (NUL bytes on every other position); then every candidate legacy encoding that
decodes the bytes strictly is scored on how plausible its text is for that encoding's language
(common Chinese characters for GB18030 and Big5, kana for Shift-JIS, Hangul for EUC-KR, mostly
ASCII words for CP1252), and ``charset-normalizer`` decides among the rest. Bytes that no
candidate reads plausibly are refused as "unknown text encoding" rather than indexed as
gibberish (GB18030 alone accepts almost any byte string).
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from goodbuddy_kb.main_process.parsing.model import ParseError

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
#: Legacy encodings tried in this order (a tie goes to the earlier one).
CANDIDATES = ("gb18030", "big5", "shift_jis", "euc_kr", "cp1252")
#: Share of a decoding's non-ASCII characters that must be plausible for its language.
MIN_PLAUSIBLE = 0.85
#: Largest ``charset-normalizer`` chaos (0–1) accepted for an encoding outside the candidates.
MAX_CHAOS = 0.1
#: Bytes looked at to decide (the whole file is decoded with the winner).
SAMPLE_BYTES = 256 * 1024

_META = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)""", re.IGNORECASE | re.DOTALL
)


def declared_charset(data: bytes) -> str | None:
    """The charset an HTML page declares in its first 4 KB (``<meta charset>`` or
    ``http-equiv="Content-Type"``), if Python knows it."""
    match = _META.search(data[:4096])
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1).decode("ascii")).name
    except LookupError:
        return None


def has_bom(data: bytes) -> bool:
    return any(data.startswith(bom) for bom, _encoding in _BOMS)


def detect(data: bytes, declared: str | None = None, sample_bytes: int = SAMPLE_BYTES) -> str:
    """The encoding to decode ``data`` with; ParseError ("binary content, not text" or
    "unknown text encoding") when there is no evidence for any."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    if declared and _decodes(data, declared):
        return declared
    sample = _sample(data, sample_bytes)
    utf16 = _utf16_without_bom(sample)
    if utf16 is not None:
        return utf16
    if _decodes(sample, "utf-8"):
        return "utf-8"
    if b"\x00" in sample[:8192]:
        raise ParseError("binary content, not text")
    scores = {
        encoding: _plausible(sample.decode(encoding), encoding)
        for encoding in CANDIDATES
        if _decodes(sample, encoding)
    }
    top = max(scores.values(), default=0.0)
    tied = [e for e, score in scores.items() if score >= MIN_PLAUSIBLE and score >= top - 0.05]
    if len(tied) == 1:
        return tied[0]
    if tied:
        # Equally plausible (Korean Hangul rows are common hanzi in GB2312): the detector's
        # confidence across just these decides, the earlier candidate when it has none.
        chaos = {str(m.encoding): m.chaos for m in from_bytes(sample, cp_isolation=tied)}
        least = min(chaos.values(), default=0.0)
        return next((e for e in tied if chaos.get(e, 1.0) <= least), tied[0])
    match = from_bytes(sample).best()
    if match is not None and match.encoding and match.chaos <= MAX_CHAOS:
        return str(match.encoding)
    raise ParseError("unknown text encoding")


def _sample(data: bytes, size: int) -> bytes:
    """At most ``size`` bytes, cut after a line break so no character is split."""
    if len(data) <= size:
        return data
    cut = data.rfind(b"\n", 0, size)
    return data[: cut + 1] if cut > 0 else data[:size]


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


def _utf16_without_bom(sample: bytes) -> str | None:
    """UTF-16 LE or BE when NULs sit on one parity of positions only (ASCII-range text), or
    when the decoding is CJK text with spaces and line breaks in the right byte order."""
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    for encoding, high, low in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if high.count(0) > 0.3 * len(high) and low.count(0) < 0.02 * len(low):
            return encoding if _decodes(sample[: len(sample) // 2 * 2], encoding) else None
    for encoding in ("utf-16-le", "utf-16-be"):
        body = sample[: len(sample) // 2 * 2]
        if not _decodes(body, encoding):
            continue
        text = body.decode(encoding)
        cjk = sum(1 for c in text if "\u3000" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7a3")
        mostly_cjk = cjk > 0.5 * len(text) and cjk + sum(c.isascii() for c in text) > 0.95 * len(
            text
        )
        if len(text) >= 8 and mostly_cjk and any(c in text for c in "\n 。，"):
            return encoding
    return None


def _plausible(text: str, encoding: str) -> float:
    """Share of the non-ASCII characters of ``text`` that are usual for ``encoding``'s
    language: GB2312 characters for GB18030, Big5 level-1 characters for Big5, kana and JIS
    level-1 kanji for Shift-JIS, Hangul for EUC-KR; for CP1252, Latin letters and punctuation
    that stay a minority of the letters (Cyrillic read as CP1252 is all accented letters)."""
    foreign = [c for c in text if not c.isascii()]
    if not foreign:
        return 1.0
    if encoding == "cp1252":
        letters = sum(1 for c in text if c.isalpha())
        if len([c for c in foreign if c.isalpha()]) > 0.4 * max(letters, 1):
            return 0.0
        usual = sum(1 for c in foreign if c.isalpha() or c in _CP1252_PUNCTUATION)
        return usual / len(foreign)
    return sum(1 for c in foreign if _usual(c, encoding)) / len(foreign)


_CP1252_PUNCTUATION = frozenset("‘’“”–—…«»°€£§©®·¡¿×\u00a0")


def _usual(char: str, encoding: str) -> bool:
    if char in "\u3000、。，．：；？！（）「」『』《》【】—…‘’“”・":
        return True
    if encoding == "euc_kr":
        return "\uac00" <= char <= "\ud7a3"
    if encoding == "shift_jis" and ("\u3040" <= char <= "\u30ff" or "\uff61" <= char <= "\uff9f"):
        return True
    table, first, last = _LEVEL1[encoding]
    try:
        lead = char.encode(table)[0]
    except UnicodeEncodeError:
        return False
    return first <= lead <= last


#: The byte range of each encoding's lead byte that holds its common characters (GB2312 as a
#: whole, Big5 level 1, JIS X 0208 level 1).
_LEVEL1 = {
    "gb18030": ("gb2312", 0xA1, 0xF7),
    "big5": ("big5", 0xA1, 0xC6),
    "shift_jis": ("shift_jis", 0x81, 0x9F),
}
