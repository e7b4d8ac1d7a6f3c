"""Fuzzing the parsers under their limits (issue 19): generated malformed DOCX, PDF, HTML and
text — damaged archives, wrong XML, truncated and spliced PDFs, deep and unclosed markup, random
bytes. Every outcome is a parsed document or a per-file ParseError, within the time budget and
a bounded amount of traced memory; never another exception."""

from __future__ import annotations

import io
import time
import tracemalloc
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goodbuddy_kb.main_process.parsing import ParsedDocument, ParseError, limits, parse
from tests.docgen import W_NS, make_docx, make_pdf, with_member

#: Per-case bounds (the time budget of a parse is lowered so that a slow case shows).
CASE_SECONDS = 12.0
CASE_MEMORY = 96 * 1024 * 1024

BASE_DOCX = make_docx([("h1", "标题"), ("p", "正文 body"), ("table", [["a", "b"], ["1", "2"]])])
BASE_PDF = make_pdf([["Page one text", "second line"], ["Page two"]], title="T")
# Import and warm every parser once, outside the timed and traced cases.
for _name, _data in (("w.docx", BASE_DOCX), ("w.pdf", BASE_PDF), ("w.html", b"<p>x</p>")):
    parse(_data, _name)

XML_PIECES = st.sampled_from(
    [
        "<w:p><w:r><w:t>text 文本</w:t></w:r></w:p>",
        "<w:p><w:pPr><w:pStyle w:val='Heading1'/></w:pPr><w:r><w:t>H</w:t></w:r></w:p>",
        "<w:tbl><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr></w:tbl>",
        "<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val='99'/></w:tcPr></w:tc></w:tr></w:tbl>",
        "<w:tbl></w:tbl>",
        "<w:p>",
        "</w:body>",
        "<foo/>",
        "&undefined;",
        "<w:sdt><w:sdtContent><w:p/></w:sdtContent></w:sdt>",
        "\x00",
        "<![CDATA[",
    ]
)


@st.composite
def docx_cases(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["body", "member", "truncate", "flip"]))
    if kind == "body":
        pieces = draw(st.lists(XML_PIECES, max_size=30))
        body = f'<w:document xmlns:w="{W_NS}"><w:body>{"".join(pieces)}</w:body></w:document>'
        return with_member(BASE_DOCX, "word/document.xml", body.encode("utf-8", "surrogatepass"))
    if kind == "member":
        names = [i.filename for i in zipfile.ZipFile(io.BytesIO(BASE_DOCX)).infolist()]
        name = draw(st.sampled_from(names))
        return with_member(BASE_DOCX, name, draw(st.binary(max_size=400)))
    if kind == "truncate":
        return BASE_DOCX[: draw(st.integers(0, len(BASE_DOCX)))]
    data = bytearray(BASE_DOCX)
    for position in draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=20)):
        data[position] = draw(st.integers(0, 255))
    return bytes(data)


@st.composite
def pdf_cases(draw: st.DrawFn) -> bytes:
    kind = draw(st.sampled_from(["truncate", "flip", "splice", "generated"]))
    if kind == "truncate":
        return BASE_PDF[: draw(st.integers(0, len(BASE_PDF)))]
    if kind == "splice":
        at = draw(st.integers(0, len(BASE_PDF)))
        return BASE_PDF[:at] + draw(st.binary(max_size=300)) + BASE_PDF[at:]
    if kind == "generated":
        lines = draw(st.lists(st.text(max_size=40), max_size=5))
        return make_pdf([[line.encode("latin-1", "replace").decode("latin-1") for line in lines]])
    data = bytearray(BASE_PDF)
    for position in draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=20)):
        data[position] = draw(st.integers(0, 255))
    return bytes(data)


TAGS = st.sampled_from(["div", "p", "li", "table", "tr", "td", "h1", "h3", "pre", "script", "b"])


@st.composite
def html_cases(draw: st.DrawFn) -> bytes:
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 40))):
        tag = draw(TAGS)
        choice = draw(st.integers(0, 4))
        if choice == 0:
            parts.append(f"<{tag}>" * draw(st.integers(1, 3_000)))  # deep, unclosed
        elif choice == 1:
            parts.append(f"</{tag}>")
        elif choice == 2:
            parts.append(draw(st.text(max_size=60)))
        elif choice == 3:
            parts.append(f"<{tag} class='{draw(st.text(max_size=10))}'>")
        else:
            parts.append("<!--" + draw(st.text(max_size=20)))
    encoding = draw(st.sampled_from(["utf-8", "gb18030", "utf-16"]))
    return "".join(parts).encode(encoding, "replace")


TEXT_CASES = st.one_of(
    st.binary(max_size=4_000),
    st.text(max_size=2_000).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.text(max_size=500).map(lambda t: t.encode("gb18030", "replace")),
)

CASES = st.one_of(
    docx_cases().map(lambda d: ("f.docx", d)),
    pdf_cases().map(lambda d: ("f.pdf", d)),
    html_cases().map(lambda d: ("f.html", d)),
    TEXT_CASES.map(lambda d: ("f.txt", d)),
    TEXT_CASES.map(lambda d: ("f.md", d)),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(CASES)
def test_every_malformed_input_is_a_document_or_a_per_file_failure(case: tuple[str, bytes]) -> None:
    name, data = case
    tracemalloc.start()
    started = time.monotonic()
    try:
        with limits.budget(seconds=CASE_SECONDS / 2):
            outcome = parse(data, name)
        assert isinstance(outcome, ParsedDocument)
    except ParseError as exc:
        assert exc.reason and len(exc.reason) < 300
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.monotonic() - started < CASE_SECONDS, name
    assert peak < CASE_MEMORY, (name, peak)
