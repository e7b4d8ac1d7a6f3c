"""Every parser counts what it produces against the document's limits while it parses, and
the refusal travels as a coded reason; the encoding detector decides on evidence (issue 31)."""

from __future__ import annotations

from zipfile import ZIP_STORED

import pytest

from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.main_process.parsing import ParseError, limits, parse
from goodbuddy_kb.main_process.parsing.encoding import declared_charset, detect
from goodbuddy_kb.main_process.sync.web import with_declared_charset
from tests.docgen import W_NS, make_docx, make_pdf, with_member


def refusal(data: bytes, name: str) -> tuple[str, dict[str, str]]:
    with pytest.raises(ParseError) as caught:
        parse(data, name)
    coded = classify(caught.value.reason)
    assert coded is not None, caught.value.reason
    return coded.code, dict(coded.params)


def test_markdown_tables_are_measured_before_they_are_expanded() -> None:
    columns = "|" + "|".join(f"c{i}" for i in range(3_000)) + "|\n"
    columns += "|" + "|".join("-" for _ in range(3_000)) + "|\n"
    assert refusal(columns.encode(), "wide.md") == (
        "parse.limit_columns",
        {"count": "3000", "limit": "2000"},
    )
    # 500 columns × 250 rows (with the header): short rows count as markdown-it fills them in.
    header = "|" + "|".join("h" for _ in range(500)) + "|\n|" + "|".join("-" for _ in range(500))
    code, params = refusal((header + "|\n" + "|x|\n" * 249).encode(), "cells.md")
    assert code == "parse.limit_cells" and params["count"] == "125000"


def test_html_and_word_tables_count_their_cells() -> None:
    row = "<tr>" + "<td>x</td>" * 1_000 + "</tr>"
    page = f"<html><body><table>{row * 101}</table></body></html>".encode()
    assert refusal(page, "t.html")[0] == "parse.limit_cells"
    wide = "<tr>" + "<td>x</td>" * 2_500 + "</tr>"
    assert refusal(f"<table>{wide}</table>".encode(), "w.html")[0] == "parse.limit_columns"
    # A Word row of one cell spanning 50,000 grid columns: python-docx would expand it.
    cell = '<w:tc><w:tcPr><w:gridSpan w:val="50000"/></w:tcPr><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc>'
    body = f'<w:document xmlns:w="{W_NS}"><w:body><w:tbl><w:tr>{cell}</w:tr></w:tbl></w:body></w:document>'
    docx = with_member(make_docx([("p", "x")]), "word/document.xml", body.encode())
    assert refusal(docx, "t.docx")[0] == "parse.limit_columns"
    cells = "<w:tr>" + "<w:tc><w:p/></w:tc>" * 1_000 + "</w:tr>"
    body = (
        f'<w:document xmlns:w="{W_NS}"><w:body><w:tbl>{cells * 101}</w:tbl></w:body></w:document>'
    )
    stored = with_member(make_docx([("p", "x")]), "word/document.xml", body.encode(), ZIP_STORED)
    assert refusal(stored, "t.docx")[0] == "parse.limit_cells"


def test_text_sections_and_characters_are_counted() -> None:
    many = b"a\n\n" * (limits.MAX_SECTIONS + 1)
    assert refusal(many, "many.txt") == (
        "parse.limit_sections",
        {"count": str(limits.MAX_SECTIONS + 1), "limit": str(limits.MAX_SECTIONS)},
    )


def test_pdf_characters_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(limits.LIMITS, "characters", 50)
    pdf = make_pdf([["A first page with more than enough text to pass fifty characters."]])
    assert refusal(pdf, "p.pdf")[0] == "parse.limit_characters"


def test_normal_documents_are_unaffected() -> None:
    table = "| k | v |\n|---|---|\n" + "| a | 1 |\n" * 2_000
    doc = parse(f"# T\n\n{table}\nAfter the table.\n".encode(), "n.md")
    assert [s.block_type for s in doc.sections] == ["heading", "table", "paragraph"]


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("国标编码的文本：请假制度。", "gb18030"),
        ("知識庫管理系統可以幫助使用者整理文件。", "big5"),
        ("今日はベクトル検索について話します。", "shift_jis"),
        ("오늘은 벡터 검색에 대해 이야기합니다.", "euc_kr"),
        ("crème brûlée à la française", "cp1252"),
        ("Система управления знаниями помогает пользователю.", "cp1251"),
        ("plain UTF-16 without a mark", "utf-16-le"),
        ("中文的 UTF-16 文本，没有字节顺序标记。\n", "utf-16-be"),
    ],
)
def test_detection_reads_each_encoding(text: str, encoding: str) -> None:
    data = text.encode(encoding)
    assert data.decode(detect(data)) == text


def test_declared_charsets_and_unknown_bytes() -> None:
    page = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
    assert declared_charset(page.encode()) == "shift_jis"
    assert declared_charset(b"<meta charset='no-such-codec'>") is None
    body = "ひまわり".encode("shift_jis")
    converted = with_declared_charset(body, "text/html; charset=shift_jis")
    assert converted.decode("utf-8-sig") == "ひまわり"
    assert with_declared_charset(body, "text/html") == body
    assert with_declared_charset(body, "text/html; charset=utf-8") == body
    noise = bytes((i * 7919) % 251 + 1 for i in range(5_000))
    with pytest.raises(ParseError, match=r"unknown text encoding|binary content"):
        parse(noise, "n.txt")
