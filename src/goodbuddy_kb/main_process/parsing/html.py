"""HTML: main text only (scripts, navigation, headers, footers and asides dropped)."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node

from goodbuddy_kb.main_process.parsing.model import BlockType, ParsedDocument, Section
from goodbuddy_kb.main_process.parsing.text import decode, paragraphs

_DROP = "script, style, noscript, template, nav, header, footer, aside, form, iframe, svg, button"
_BLOCK_TAGS: dict[str, BlockType] = {
    "h1": "heading",
    "h2": "heading",
    "h3": "heading",
    "h4": "heading",
    "h5": "heading",
    "h6": "heading",
    "p": "paragraph",
    "li": "list",
    "pre": "code",
    "table": "table",
    "blockquote": "quote",
    "dd": "paragraph",
    "dt": "paragraph",
}


def _inside_block(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag in _BLOCK_TAGS:
            return True
        parent = parent.parent
    return False


def _table_text(node: Node) -> tuple[str, int]:
    rows = []
    for tr in node.css("tr"):
        cells = [" ".join(c.text(separator=" ").split()) for c in tr.css("th, td")]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows), 1 if rows else 0


def parse_html(data: bytes, title: str) -> ParsedDocument:
    tree = HTMLParser(decode(data))
    page_title = ""
    title_node = tree.css_first("title")
    if title_node is not None:
        page_title = " ".join(title_node.text().split())
    for node in tree.css(_DROP):
        node.decompose()
    root = tree.css_first("main") or tree.css_first("article") or tree.body or tree.root
    sections: list[Section] = []
    if root is None:
        return ParsedDocument(page_title or title, "text/html", sections)
    path: list[tuple[int, str]] = []
    for node in root.css(", ".join(_BLOCK_TAGS)):
        tag = node.tag or ""
        if _inside_block(node) or tag not in _BLOCK_TAGS:
            continue
        block = _BLOCK_TAGS[tag]
        header_lines = 0
        if block == "table":
            text, header_lines = _table_text(node)
        elif block == "code":
            text = node.text(deep=True).strip("\n")
        else:
            text = " ".join(node.text(separator=" ").split())
        if not text.strip():
            continue
        if block == "heading":
            level = int(tag[1])
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, text))
        sections.append(Section(text, block, tuple(h for _, h in path), header_lines=header_lines))
    if not sections:
        body_text = root.text(separator="\n")
        sections = [Section(p, "paragraph") for p, _a, _b in paragraphs(body_text)]
    return ParsedDocument(page_title or title, "text/html", sections)
