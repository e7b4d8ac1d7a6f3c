"""HTML: main text only (scripts, navigation, headers, footers and asides dropped)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.encoding import declared_charset
from goodbuddy_kb.main_process.parsing.model import BlockType, ParsedDocument, ParseError, Section
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


_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>")
#: Elements that never hold others, or that the parser closes by itself when a sibling starts.
_FLAT = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
        "p",
        "li",
        "dt",
        "dd",
        "option",
        "tr",
        "td",
        "th",
    ]
)
#: Open elements the raw markup may leave unclosed at once before the page is refused: the
#: HTML parser's cost grows with the square of the nesting (40,000 open divs take 9 s).
MAX_OPEN_ELEMENTS = 4_000


def _check_nesting(markup: str) -> None:
    """Estimate nesting from the raw tags before parsing (the parser itself cannot be stopped)."""
    depth = 0
    for number, match in enumerate(_TAG.finditer(markup)):
        closing, name, self_closing = match.groups()
        if self_closing or name.lower() in _FLAT:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        if depth > MAX_OPEN_ELEMENTS:
            raise ParseError(f"the page is nested more than {MAX_OPEN_ELEMENTS:,} elements deep")
        if number % 8192 == 0:
            limits.check()


def _check_size(root: Node) -> None:
    """Refuse a page with more elements than the limit, checking time as it counts."""
    for count, _node in enumerate(root.traverse(include_text=False), start=1):
        if count % 4096 == 0:
            limits.check()
        if count > limits.MAX_HTML_NODES:
            raise ParseError(f"the page has more than {limits.MAX_HTML_NODES:,} elements")


#: Elements that part the text before and after them (a line break, a block); any other element
#: (bold, a link, code) runs into the words beside it, as a reader sees it.
_PARTS = frozenset(_BLOCK_TAGS) | frozenset(
    [
        "br",
        "hr",
        "div",
        "ul",
        "ol",
        "dl",
        "tr",
        "td",
        "th",
        "caption",
        "section",
        "article",
        "figure",
        "figcaption",
        "address",
        "details",
        "summary",
        "img",
    ]
)


def _walk(node: Node, blocks: frozenset[str] = frozenset()) -> Iterator[tuple[str, Node | None]]:
    """``node``'s contents in document order, without recursion (a page may nest thousands of
    elements): ("text", a text node); ("block", an element of ``blocks``, not entered);
    ("part", None) at the start and the end of any other element that parts the text around
    it (``_PARTS``). Comments are skipped."""
    stack = [(iter(node.iter(include_text=True)), False)]
    count = 0
    while stack:
        child = next(stack[-1][0], None)
        if child is None:
            if stack.pop()[1]:
                yield "part", None
            continue
        count += 1
        if count % 512 == 0:
            limits.check()
        tag = child.tag or ""
        if tag == "-text":
            yield "text", child
        elif tag in blocks:
            yield "block", child
        elif tag and not tag.startswith("_"):  # (not a comment)
            parted = tag in _PARTS
            if parted:
                yield "part", None
            if len(stack) >= limits.MAX_HTML_DEPTH:
                raise ParseError(
                    f"the page is nested more than {limits.MAX_HTML_DEPTH} levels deep"
                )
            stack.append((iter(child.iter(include_text=True)), parted))


def _reading_text(node: Node) -> str:
    """``node``'s text on one line, as it reads: "<b>绝密</b>：…" is "绝密：…" and
    "<a>IT 服务台</a>（…" is "IT 服务台（…" (every text node was joined with a space, and
    "绝密 ：" was what the chunk and the answer showed), while "a<br>b" stays two words."""
    parts = [" " if child is None else child.text_content or "" for _kind, child in _walk(node)]
    return " ".join("".join(parts).split())


def _table_text(node: Node) -> tuple[str, int]:
    rows = []
    for tr in node.css("tr"):
        found = tr.css("th, td")
        limits.check_table(len(found), 1)
        cells = [_reading_text(c) for c in found]
        if any(cells):
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows), 1 if rows else 0


def _sections(root: Node) -> list[Section]:
    """The page's sections in document order."""
    sections: list[Section] = []
    path: list[tuple[int, str]] = []
    loose: list[str] = []  # text outside any block element ("<div>text</div>"), as it comes

    def add(text: str, block: BlockType, header_lines: int = 0, level: int = 0) -> None:
        limits.produce(sections=1, characters=len(text))
        if block == "heading":
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, text))
        sections.append(Section(text, block, tuple(h for _, h in path), header_lines=header_lines))

    def flush() -> None:
        text = " ".join("".join(loose).split())
        loose.clear()
        if text:
            add(text, "paragraph")

    # A block element (a heading, a paragraph, a list item, a table) is one section; text
    # outside them is a paragraph up to the next block, line break or division (a page of
    # "<div>" text lost it all beside one "<p>").
    for kind, node in _walk(root, frozenset(_BLOCK_TAGS)):
        if kind == "text" and node is not None:
            loose.append(node.text_content or "")
        elif kind == "part":
            flush()
        elif node is not None:
            flush()
            tag = node.tag or ""
            block = _BLOCK_TAGS[tag]
            header_lines = 0
            if block == "table":
                text, header_lines = _table_text(node)
            elif block == "code":
                text = node.text(deep=True).strip("\n")
            else:
                text = _reading_text(node)
            if text.strip():
                add(text, block, header_lines, int(tag[1]) if block == "heading" else 0)
    flush()
    return sections


def parse_html(data: bytes, title: str) -> ParsedDocument:
    markup = decode(data, declared_charset(data))
    _check_nesting(markup)
    tree = HTMLParser(markup)
    if tree.root is not None:
        _check_size(tree.root)
    page_title = ""
    title_node = tree.css_first("title")
    if title_node is not None:
        page_title = " ".join(title_node.text().split())
    for node in tree.css(_DROP):
        node.decompose()
    root = tree.css_first("main") or tree.css_first("article") or tree.body or tree.root
    if root is None:
        return ParsedDocument(page_title or title, "text/html", [])
    sections = _sections(root)
    if not sections:
        body_text = root.text(separator="\n")
        sections = [Section(p, "paragraph") for p, _a, _b in paragraphs(body_text)]
    return ParsedDocument(page_title or title, "text/html", sections)
