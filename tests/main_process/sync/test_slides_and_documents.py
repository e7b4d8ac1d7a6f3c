"""Presentations (PPTX, ODP), OpenDocument text (ODT) and RTF (issue 35): real files written by
python-pptx and odfpy (RTF by hand: no maintained library writes it), read into headings,
paragraphs, tables and speaker notes, chunked, synced, and bounded when hostile."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking.chunker import chunk_document
from goodbuddy_kb.main_process.lexical import build_query, search
from goodbuddy_kb.main_process.parsing import ParseError, parse
from goodbuddy_kb.main_process.storage import documents
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.engine import sync_source
from tests.slidegen import (
    make_odp,
    make_odt,
    make_pptx,
    make_rtf,
    pptx_with_slides,
    rtf_escaped,
    rtf_unicode,
    with_member,
)

DECK = [
    {
        "title": "差旅标准 Travel",
        "boxes": [("右侧 right column", 15, 5), ("左侧 left column", 1, 5), ("底部 bottom", 1, 9)],
        "table": [["城市 City", "住宿 Hotel"], ["北京", "800"], ["Shanghai", "700"]],
        "notes": "讲者备注：报销口令是海象",
    },
    {"title": "Agenda", "notes": "The walrus password is blue"},
    {"boxes": [("an untitled slide", 1, 1)]},
]


@pytest.mark.parametrize("name", ["deck.pptx", "deck.odp"])
def test_slides_read_titles_frames_in_reading_order_tables_and_notes(name: str) -> None:
    data = make_pptx(DECK) if name.endswith("pptx") else make_odp(DECK)
    doc = parse(data, name)
    first = [(s.block_type, s.text, s.heading_path) for s in doc.sections if s.locator.slide == 1]
    assert first == [
        ("heading", "差旅标准 Travel", ("差旅标准 Travel",)),
        ("paragraph", "左侧 left column", ("差旅标准 Travel",)),
        ("paragraph", "右侧 right column", ("差旅标准 Travel",)),
        ("paragraph", "底部 bottom", ("差旅标准 Travel",)),
        (
            "table",
            "| 城市 City | 住宿 Hotel |\n| 北京 | 800 |\n| Shanghai | 700 |",
            ("差旅标准 Travel",),
        ),
        ("paragraph", "备注：讲者备注：报销口令是海象", ("差旅标准 Travel", "备注")),
    ]
    notes = [s for s in doc.sections if s.locator.slide == 2 and s.block_type != "heading"]
    assert [(s.text, s.heading_path) for s in notes] == [
        ("Notes: The walrus password is blue", ("Agenda", "Notes"))
    ]
    assert [s.text for s in doc.sections if s.locator.slide == 3] == ["an untitled slide"]
    table = next(s for s in doc.sections if s.block_type == "table")
    assert table.header_lines == 1


def test_a_slide_table_is_chunked_by_rows_with_its_header_and_the_slide_locator() -> None:
    rows = [["项目 Item", "上限 Limit"]] + [[f"row{i} 出差补贴", str(i * 10)] for i in range(60)]
    doc = parse(make_pptx([{"title": "Intro"}, {"title": "Limits", "table": rows}]), "t.pptx")
    settings = KnowledgeChunkingSettings(mode="structure", target_characters=400)
    pieces = [d for d in chunk_document(doc, "doc", settings) if "row" in d.content]
    assert len(pieces) > 2
    for piece in pieces:
        assert piece.content.startswith("| 项目 Item | 上限 Limit |\n")
        assert piece.locator["slide"] == 2 and "slideEnd" not in piece.locator


def test_odt_reads_headings_paragraphs_and_tables() -> None:
    data = make_odt(
        [
            ("h1", "报销制度 Expenses"),
            ("p", "第一段：出差需要审批。"),
            ("h2", "Limits"),
            ("table", [["级别 Level", "金额 Amount"], ["经理", "1000"], ["staff", "500"]]),
            ("p", "Keep every receipt."),
        ]
    )
    doc = parse(data, "policy.odt")
    assert doc.title == "报销制度 Expenses"
    assert [(s.block_type, s.text, s.heading_path) for s in doc.sections] == [
        ("heading", "报销制度 Expenses", ("报销制度 Expenses",)),
        ("paragraph", "第一段：出差需要审批。", ("报销制度 Expenses",)),
        ("heading", "Limits", ("报销制度 Expenses", "Limits")),
        (
            "table",
            "| 级别 Level | 金额 Amount |\n| 经理 | 1000 |\n| staff | 500 |",
            ("报销制度 Expenses", "Limits"),
        ),
        ("paragraph", "Keep every receipt.", ("报销制度 Expenses", "Limits")),
    ]


def test_rtf_decodes_chinese_written_as_code_page_bytes_and_as_unicode_escapes() -> None:
    data = make_rtf(
        [
            rtf_escaped("第一段：差旅报销需要发票。"),
            rtf_unicode("第二段：统一码转义的中文。"),
            "Plain English paragraph.",
        ]
    )
    assert b"\\'b5\\'da" in data and b"\\u31532?" in data  # 第 in GBK bytes and as \uN?
    doc = parse(data, "policy.rtf")
    assert [s.text for s in doc.sections] == [
        "第一段：差旅报销需要发票。",
        "第二段：统一码转义的中文。",
        "Plain English paragraph.",
    ]


def test_rtf_bytes_in_a_big5_code_page_read_as_big5() -> None:
    head = r"{\rtf1\ansi\ansicpg950\deff0{\fonttbl{\f0\fnil MingLiU;}}\pard\f0 "
    data = (head + rtf_escaped("繁體中文段落", "big5") + r"\par}").encode("ascii")
    assert [s.text for s in parse(data, "big5.rtf").sections] == ["繁體中文段落"]


def corrupt(data: bytes) -> bytes:
    return data[: len(data) // 2]


EMPTY_AND_CORRUPT = {
    "empty.pptx": b"",
    "blank.pptx": make_pptx([]),
    "cut.pptx": corrupt(make_pptx(DECK)),
    "empty.odp": b"",
    "cut.odp": corrupt(make_odp(DECK)),
    "empty.odt": b"",
    "blank.odt": make_odt([]),
    "cut.odt": corrupt(make_odt([("p", "x")])),
    "empty.rtf": b"",
    "cut.rtf": b"\x00\x01 not rtf at all",
}


def test_empty_and_corrupt_files_fail_alone_and_the_sync_goes_on(
    pool: ConnectionPool, folder: Path, folder_source: SourceRow
) -> None:
    for name, data in EMPTY_AND_CORRUPT.items():
        (folder / name).write_bytes(data)
    (folder / "zz-deck.pptx").write_bytes(make_pptx(DECK))
    (folder / "zz-slides.odp").write_bytes(make_odp(DECK))
    (folder / "zz-policy.odt").write_bytes(make_odt([("h1", "Policy"), ("p", "odt kiwifruit")]))
    (folder / "zz-policy.rtf").write_bytes(make_rtf([rtf_escaped("富文本猕猴桃段落")]))
    report = sync_source(pool.get(), folder_source, CancelToken())
    assert report.failed == len(EMPTY_AND_CORRUPT) and report.processed == 4
    failed, _ = documents.page(pool.get(), folder_source.library_id, 0, 50, "failed")
    reasons = {d.path: d.error or "" for d in failed}
    assert set(reasons) == set(EMPTY_AND_CORRUPT)
    for path, reason in reasons.items():
        assert classify(reason) is not None, (path, reason)  # every reason has a message code
    library = [folder_source.library_id]
    for word in ("walrus", "kiwifruit", "猕猴桃"):
        assert search(pool.get(), "fts" if word.isascii() else "cjk", library, build_query(word), 5)


def bounded(data: bytes, name: str, reason: str) -> None:
    tracemalloc.start()
    started = time.process_time()  # processor time: a busy machine must not fail it
    with pytest.raises(ParseError, match=reason) as caught:
        parse(data, name)
    elapsed = time.process_time() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert classify(caught.value.reason) is not None
    assert elapsed < 5 and peak < 64 * 1024 * 1024, (elapsed, peak)


def test_ten_thousand_slides_are_refused_with_a_coded_reason_quickly() -> None:
    bounded(pptx_with_slides(10_000), "many.pptx", r"too many slides \(10000; at most 1000\)")


def test_ten_thousand_odp_pages_are_refused_with_a_coded_reason() -> None:
    data = make_odp([{"boxes": [("p", 1, 1)]}] * 10_000)
    with pytest.raises(ParseError, match=r"too many slides \(10000; at most 1000\)"):
        parse(data, "many.odp")


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("bomb.pptx", make_pptx(DECK)),
        ("bomb.odp", make_odp(DECK)),
        ("bomb.odt", make_odt([("p", "x")])),
    ],
)
def test_zip_bombs_are_refused_quickly_in_little_memory(name: str, data: bytes) -> None:
    bomb = with_member(data, "media/zeros.bin", b"\0" * (30 * 1024 * 1024))
    assert len(bomb) < 200_000
    bounded(bomb, name, "expands more than")


def test_an_opendocument_body_past_its_limit_is_refused_before_odfpy_loads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from goodbuddy_kb.main_process.parsing import limits

    monkeypatch.setattr(limits, "MAX_ODF_CONTENT_BYTES", 1024 * 1024)
    data = make_odt([("p", f"paragraph number {i} of a long body") for i in range(30_000)])
    bounded(data, "long.odt", r"expands past 1 MB \(content.xml\)")
