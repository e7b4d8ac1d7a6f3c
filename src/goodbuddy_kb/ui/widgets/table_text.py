"""How a chunk's Markdown pipe tables read to people (a spreadsheet's rows, a slide's or a
document's table) wherever chunk text is shown: as an HTML table with its header row in a preview
(the workbench's snippet, a citation's context, the chunk viewer), and as "header: value" pairs
on one line in a table cell (the workbench's results and the chat's sources). The text itself is
never changed — it is what was indexed and what an edit saves."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

#: A header delimiter line: ``| --- | :-: |``.
_DELIMITER = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+$")
#: A cell boundary: a ``|`` that is not escaped (cells keep ``\|`` for a pipe of their own).
_BOUNDARY = re.compile(r"(?<!\\)\|")
#: Between two rows on one line.
ROW_SEPARATOR = "  ⏐  "


def _is_row(line: str) -> bool:
    stripped = line.strip()
    return len(stripped) > 1 and stripped.startswith("|") and stripped.endswith("|")


def cells(line: str) -> list[str]:
    """A row's cells, trimmed, with ``\\|`` read back as ``|``."""
    inner = line.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in _BOUNDARY.split(inner)]


Block = tuple[list[str], list[list[str]]] | str


def blocks(text: str) -> Iterator[Block]:
    """The text as plain runs (str) and tables (header cells, body rows). A run of pipe rows
    whose second line is a delimiter has a header; one without (a cut piece) has none."""
    lines = text.split("\n")
    plain: list[str] = []
    i = 0
    while i < len(lines):
        if not _is_row(lines[i]):
            plain.append(lines[i])
            i += 1
            continue
        end = i
        while end < len(lines) and _is_row(lines[end]):
            end += 1
        if plain:
            yield "\n".join(plain)
            plain = []
        rows = lines[i:end]
        header: list[str] = []
        if len(rows) > 1 and _DELIMITER.match(rows[1].strip()):
            header, rows = cells(rows[0]), rows[2:]
        yield header, [cells(r) for r in rows if not _DELIMITER.match(r.strip())]
        i = end
    if plain:
        yield "\n".join(plain)


def has_table(text: str) -> bool:
    return any(not isinstance(b, str) for b in blocks(text))


def _table_html(header: list[str], rows: list[list[str]]) -> str:
    def row(tag: str, values: list[str]) -> str:
        return "<tr>" + "".join(f"<{tag}>{html.escape(v)}</{tag}>" for v in values) + "</tr>"

    head = row("th", header) if header else ""
    body = "".join(row("td", r) for r in rows)
    return (
        "<table border='1' cellspacing='0' cellpadding='4' style='border-collapse: collapse'>"
        f"{head}{body}</table>"
    )


def text_html(text: str) -> str:
    """The text as HTML (every value escaped): tables as tables, other lines kept as lines."""
    parts = []
    for block in blocks(text):
        if isinstance(block, str):
            if block.strip():
                parts.append("<p>" + html.escape(block).replace("\n", "<br>") + "</p>")
        else:
            parts.append(_table_html(*block))
    return "".join(parts)


def one_line(text: str) -> str:
    """The text on one line for a table cell: each table row as ``header: value`` pairs (empty
    cells left out), rows apart by ``ROW_SEPARATOR``; other lines joined by spaces."""
    parts: list[str] = []
    for block in blocks(text):
        if isinstance(block, str):
            parts.append(" ".join(block.split()))
            continue
        header, rows = block
        for row in rows:
            pairs = [
                f"{name}: {value}" if name else value
                for name, value in zip(header + [""] * len(row), row, strict=False)
                if value
            ]
            parts.append(" · ".join(pairs))
    line = ROW_SEPARATOR.join(p for p in parts if p)
    # A snippet's "…" (rows left out) follows the last row instead of reading as a row.
    return line[: -len(ROW_SEPARATOR) - 1] + " …" if line.endswith(ROW_SEPARATOR + "…") else line
