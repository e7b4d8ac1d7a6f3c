"""The order a person reads file names in, as a key SQLite can sort and index."""

from __future__ import annotations

import re
import unicodedata

_NUMBER = re.compile(r"[0-9]+")


def sort_key(relative_path: str) -> str:
    """How a person orders names, as one string SQLite orders byte by byte: width and case folded
    (NFKC, casefold) and each run of digits by its number — its length in digits first — so
    "Chapter 2" lists before "Chapter 10" and "ｃｈａｐｔｅｒ 3" beside "chapter 3". Stored with
    the document (``documents.sort_key``), so a page of a large library is read off an index."""
    text = unicodedata.normalize("NFKC", relative_path).casefold()

    def number(m: re.Match[str]) -> str:
        digits = m.group().lstrip("0") or "0"
        return f"{len(digits):03d}{digits}"

    return _NUMBER.sub(number, text)
