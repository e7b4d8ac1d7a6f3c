"""Markdown: headings set the heading path; paragraphs, lists, tables, code and quotes are blocks.

Blocks keep their source text (line ranges from markdown-it's token map), so a table keeps its
header and separator rows and a code block keeps its fences. Only block structure is parsed
(the inline rules are off: sections keep source text), and tables are measured before
markdown-it expands them into three tokens per cell (``limits.check_table``).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import BlockType, Locator, ParsedDocument, Section
from goodbuddy_kb.main_process.parsing.text import decode

_md = MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
#: A table's delimiter row (``| --- | :-: |``), after any quote markers and indentation.
_DELIMITER = re.compile(r"^[\s>]*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")

_BLOCKS: dict[str, BlockType] = {
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "blockquote_open": "quote",
    "html_block": "paragraph",
}


def _columns(line: str) -> int:
    return line.strip().lstrip(">").strip().strip("|").count("|") + 1


def check_tables(lines: list[str]) -> None:
    """Count every table's cells (columns × rows, as markdown-it will expand them, empty cells
    included) and columns against the limits, before markdown-it runs."""
    number = 1
    while number < len(lines):
        if number % 8192 == 0:
            limits.check()
        if "|" not in lines[number - 1] or not _DELIMITER.match(lines[number]):
            number += 1
            continue
        columns = max(_columns(lines[number - 1]), _columns(lines[number]))
        end = number + 1
        while end < len(lines) and lines[end].strip():
            end += 1
        limits.check_table(columns, end - number)
        number = end + 1


def parse_markdown(data: bytes, title: str) -> ParsedDocument:
    text = decode(data)
    lines = text.splitlines()
    check_tables(lines)
    tokens = _md.parse(text)
    sections: list[Section] = []
    path: list[tuple[int, str]] = []  # (level, heading text)
    doc_title = ""
    for i, token in enumerate(tokens):
        if token.level != 0 or token.map is None:
            continue
        start, end = token.map
        if token.type == "heading_open":
            level = int(token.tag[1])
            heading = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            while path and path[-1][0] >= level:
                path.pop()
            if heading:
                path.append((level, heading))
                doc_title = doc_title or (heading if level == 1 else "")
                limits.produce(sections=1, characters=len(heading))
                sections.append(
                    Section(
                        heading,
                        "heading",
                        tuple(h for _, h in path),
                        Locator(line_start=start + 1, line_end=end),
                    )
                )
            continue
        block = _BLOCKS.get(token.type)
        if block is None:
            continue
        body = "\n".join(lines[start:end]).strip("\n")
        if not body.strip():
            continue
        limits.produce(sections=1, characters=len(body))
        sections.append(
            Section(
                body,
                block,
                tuple(h for _, h in path),
                Locator(line_start=start + 1, line_end=end),
                header_lines=2 if block == "table" else 0,
            )
        )
    return ParsedDocument(doc_title or title, "text/markdown", sections)
