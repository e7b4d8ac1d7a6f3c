"""File names in a diagnostics export: every document's path and file name and every source's
location (a folder, a file, a web address) known to the data directory is replaced by
``<file>`` wherever it stands in the bundle's text. A task's reason names the first document
that failed, an OS error the path it could not read; the bundle is meant to be attached to a
request for help as it is, so it names no file.

A name is looked for only between characters that can delimit one in a message (spaces,
quotes, brackets, separators, punctuation), so the search costs set look-ups over those
positions rather than one scan of the text per known name (a data directory may hold a
hundred thousand documents).
"""

from __future__ import annotations

import itertools
import sqlite3
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath

#: What stands in a name's place.
PLACEHOLDER = "<file>"
#: Characters a name may begin after or end before in a message.
EDGES = frozenset(" \t\r\n\"'`“”‘’「」『』()[]{}（）【】<>:：,，;；。、.!?/\\|=")
#: Shorter names (and ones with neither an extension nor a folder) would hit ordinary words.
MIN_NAME = 3


def _is_name(text: str) -> bool:
    return len(text) >= MIN_NAME and any(ch in text for ch in "./\\")


def _names_of(location: str) -> set[str]:
    """A path or address and its file name (by either platform's rules)."""
    found = {location, PurePosixPath(location).name, PureWindowsPath(location).name}
    return {name for name in found if _is_name(name)}


@dataclass(frozen=True)
class NameRedactor:
    names: frozenset[str]
    shortest: int
    longest: int

    @classmethod
    def of(cls, conn: sqlite3.Connection) -> NameRedactor:
        """Every source location and document path of the data directory."""
        sources = (location for (location,) in conn.execute("SELECT location FROM sources"))
        documents = (path for (path,) in conn.execute("SELECT relative_path FROM documents"))
        return cls.of_locations(itertools.chain(sources, documents))

    @classmethod
    def of_locations(cls, locations: Iterable[str]) -> NameRedactor:
        names: set[str] = set()
        for location in locations:
            names |= _names_of(location)
        lengths = [len(name) for name in names] or [0]
        return cls(frozenset(names), min(lengths), max(lengths))

    def redact(self, text: str) -> str:
        """``text`` with every known name that stands between delimiters replaced."""
        if not self.names or len(text) < self.shortest:
            return text
        edges = [i for i, ch in enumerate(text) if ch in EDGES]
        starts = sorted({0, *edges, *(i + 1 for i in edges)})
        ends = sorted({len(text), *edges, *(i + 1 for i in edges)})
        out: list[str] = []
        done = 0
        for start in starts:
            if start < done:
                continue
            end = self._longest_at(text, start, ends)
            if end is not None:
                out += [text[done:start], PLACEHOLDER]
                done = end
        return "".join(out) + text[done:]

    def _longest_at(self, text: str, start: int, ends: list[int]) -> int | None:
        low = bisect_left(ends, start + self.shortest)
        high = bisect_right(ends, start + self.longest)
        for end in reversed(ends[low:high]):
            if text[start:end] in self.names:
                return end
        return None
