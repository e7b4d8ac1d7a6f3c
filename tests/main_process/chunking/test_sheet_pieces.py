"""How a real workbook (written by openpyxl) is cut, in every chunking mode (issue 35): a sheet
that fits in one chunk is one chunk located by the whole sheet's rows; a long sheet is cut between
rows and every piece's locator gives the rows that piece holds (in the structure modes each
piece also repeats the header; fixed mode cuts the text by length, so only the rows)."""

from __future__ import annotations

import io
import re

import pytest
from openpyxl import Workbook

from goodbuddy_kb.contracts.settings import ChunkingMode, KnowledgeChunkingSettings
from goodbuddy_kb.main_process.chunking.chunker import chunk_document
from goodbuddy_kb.main_process.parsing import parse

HEADER = "| 城市 | 住宿标准 | 伙食补贴 |\n| --- | --- | --- |\n"


def workbook() -> bytes:
    book = Workbook()
    short = book.active
    assert short is not None
    short.title = "差旅标准"
    short.append(["城市", "住宿标准", "伙食补贴"])
    for i in range(29):  # rows 2–30
        short.append([f"城市{i}", 500 + i, 100])
    long = book.create_sheet("通讯录")
    long.append(["城市", "住宿标准", "伙食补贴"])
    for i in range(400):  # rows 2–401: row n holds 编号{n}
        long.append([f"编号{i + 2}", f"555-{i:04}", "a longer note to fill the row"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def pieces(mode: ChunkingMode) -> list[tuple[dict[str, object], str]]:
    drafts = chunk_document(
        parse(workbook(), "travel.xlsx"), "doc", KnowledgeChunkingSettings(mode=mode)
    )
    return [(d.locator, d.content) for d in drafts if d.role != "parent"]


@pytest.mark.parametrize("mode", ["structure", "parent-child", "fixed"])
def test_a_short_sheet_is_one_chunk_and_each_piece_of_a_long_one_locates_its_rows(
    mode: ChunkingMode,
) -> None:
    chunks = pieces(mode)
    short = [(loc, text) for loc, text in chunks if loc.get("sheet") == "差旅标准"]
    assert len(short) == 1
    assert short[0][0]["rowStart"] == 2 and short[0][0]["rowEnd"] == 30
    assert short[0][1].startswith(HEADER) and "| 城市28 | 528 | 100 |" in short[0][1]
    long = [(loc, text) for loc, text in chunks if loc.get("sheet") == "通讯录"]
    assert len(long) > 3
    for loc, text in long:
        held = held_rows(text)
        assert (loc["rowStart"], loc["rowEnd"]) == (min(held), max(held)), text[:80]
        if mode != "fixed":  # the structure modes cut between rows, the header on each piece
            assert text.startswith(HEADER)
    assert long[-1][0]["rowEnd"] == 401
    # (fixed mode reads the workbook as one stream: its first piece runs on into the next sheet)
    assert long[0][0]["rowStart"] == (2 if mode != "fixed" else min(held_rows(long[0][1])))


def held_rows(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"编号(\d+)", text)]
