"""A spreadsheet through a real backend and the `goodbuddy-kb` command (issue 35): a question
answered by one row of a long sheet returns that row's piece with the header and its
sheet/row locator, and a folder of spreadsheets syncs with the corrupt one failing alone."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from openpyxl import Workbook

from goodbuddy_kb.bridge.launcher import BackendProcess
from tests.cli.runner import cli_json, run

pytestmark = pytest.mark.integration


def travel_book() -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "差旅标准"
    sheet.append(["城市", "住宿标准（元/晚）", "伙食补贴（元/天）"])
    for i in range(200):
        sheet.append([f"普通城市{i:03d}", 400 + i, 80])
    sheet["A151"] = "Zhuhai"
    sheet["B151"] = 777
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_question_answered_by_one_row_returns_it_with_its_header_and_locator(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "travel.xlsx").write_bytes(travel_book())
    text = io.StringIO()
    csv.writer(text).writerows([["Name", "Extension"], ["Quentin Okapi", "4411"]])
    (docs / "phones.csv").write_bytes(text.getvalue().encode("utf-8-sig"))
    (docs / "broken.xlsx").write_bytes(travel_book()[:2000])
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    run(data_dir, "sync", "L")
    listed = cli_json(data_dir, "documents", "L", "--limit", "100")
    by_path = {d["path"]: d for d in listed["documents"]}
    assert by_path["travel.xlsx"]["status"]["parse"] == "done"
    assert by_path["phones.csv"]["status"]["parse"] == "done"
    assert by_path["broken.xlsx"]["status"]["parse"] == "failed"
    assert by_path["broken.xlsx"]["errorCode"]

    answer = cli_json(data_dir, "retrieve", "L", "Zhuhai")
    top = answer["results"][0]
    assert top["documentPath"] == "travel.xlsx"
    locator = top["locator"]
    assert locator["sheet"] == "差旅标准"
    assert locator["rowStart"] <= 151 <= locator["rowEnd"]
    assert locator["rowEnd"] - locator["rowStart"] < 100  # the row's piece, not the sheet
    group = next(g for g in answer["context"]["groups"] if top["chunkId"] in g["chunkIds"])
    assert "| 城市 | 住宿标准（元/晚） | 伙食补贴（元/天） |" in group["text"]
    assert "| Zhuhai | 777 | 80 |" in group["text"]

    phone = cli_json(data_dir, "retrieve", "L", "Okapi")["results"][0]
    assert phone["documentPath"] == "phones.csv"
    assert phone["locator"] == {"rowStart": 2, "rowEnd": 2}
