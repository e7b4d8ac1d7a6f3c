"""Markdown: headings set the heading path; paragraphs, lists, tables, code and quotes are blocks.

Blocks keep their source text (line ranges from markdown-it's token map), so a table keeps its
header and separator rows and a code block keeps its fences.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from goodbuddy_kb.main_process.parsing.model import BlockType, Locator, ParsedDocument, Section
from goodbuddy_kb.main_process.parsing.text import decode

_md = MarkdownIt("commonmark").enable("table")

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


def parse_markdown(data: bytes, title: str) -> ParsedDocument:
    text = decode(data)
    lines = text.splitlines()
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
