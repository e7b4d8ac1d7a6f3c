"""JSON from a party we do not trust (a chat model, its stream), read with bounded nesting: the
depth is measured before parsing, on the brackets outside strings, so a 100,000-deep answer is
refused as ``TooDeep`` (a ``ValueError``) instead of exhausting the parser's recursion."""

from __future__ import annotations

import json
import re
from typing import Any

#: Nesting deeper than this is refused (an extraction answer needs 3 levels, a stream event 5).
MAX_DEPTH = 64

_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


class TooDeep(ValueError):
    """The text nests arrays and objects deeper than the limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")
        self.limit = limit


def depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of ``text``'s arrays and objects, counted up to ``limit + 1``."""
    if text.count("[") + text.count("{") <= limit:
        return min(limit, text.count("[") + text.count("{"))
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    level = deepest = 0
    for char in brackets:
        if char in "[{":
            level += 1
            if level > deepest:
                deepest = level
                if deepest > limit:
                    break
        else:
            level = max(0, level - 1)
    return deepest


def loads(text: str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` of ``text`` once its nesting is within ``limit``; ``TooDeep`` or
    ``ValueError`` otherwise."""
    if depth(text, limit) > limit:
        raise TooDeep(limit)
    try:
        return json.loads(text)
    except RecursionError:  # cannot happen within the limit; never let it escape as a crash
        raise TooDeep(limit) from None
