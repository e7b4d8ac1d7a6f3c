"""E-books and e-mail through a real backend and the `goodbuddy-kb` command (issue 35): a
question a chapter answers returns that chapter with its chapter locator, one an e-mail body
answers returns the message; a corrupt book and an empty message fail alone."""

from __future__ import annotations

from email.base64mime import header_encode
from pathlib import Path
from typing import Any

import pytest

from tests.bookgen import make_eml, make_epub
from tests.cli.runner import cli_json, run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def top(data_dir: Path, question: str) -> dict[str, Any]:
    results = cli_json(data_dir, "retrieve", "L", question)["results"]
    assert results, question
    return dict(results[0])


def chinese_message() -> bytes:
    raw = make_eml("placeholder", "差旅住宿标准：一线城市每晚不超过八百元。", charset="gb2312")
    subject = header_encode("差旅报销规定".encode("gb2312"), charset="gb2312").encode("ascii")
    head, body = raw.split(b"\n\n", 1)
    lines = [b"Subject: " + subject if x.startswith(b"Subject:") else x for x in head.split(b"\n")]
    return b"\n".join(lines) + b"\n\n" + body


def test_chapters_and_messages_are_found_with_their_locators(
    data_dir: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    book = make_epub(
        "员工手册",
        [
            ("入职须知", "<p>新员工第一天到前台领取工牌和电脑。</p>"),
            ("Expenses", "<h2>Travel</h2><p>The hotel limit is 600 yuan per night.</p>"),
        ],
    )
    (docs / "handbook.epub").write_bytes(book)
    (docs / "parking.eml").write_bytes(
        make_eml("Parking rules", "Visitors park in lot C behind the warehouse.")
    )
    (docs / "travel.eml").write_bytes(chinese_message())
    (docs / "broken.epub").write_bytes(b"PK\x03\x04" + b"\x00" * 300)
    (docs / "empty.eml").write_bytes(b"")
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    assert run(data_dir, "sync", "L").returncode == 0
    listed = cli_json(data_dir, "documents", "L", "--limit", "100")["documents"]
    fulltext = {d["path"]: d["status"]["fulltext"] for d in listed}
    assert fulltext["handbook.epub"] == fulltext["parking.eml"] == fulltext["travel.eml"] == "done"
    parse = {d["path"]: d["status"]["parse"] for d in listed}
    assert parse["handbook.epub"] == parse["parking.eml"] == parse["travel.eml"] == "done"
    assert parse["broken.epub"] == parse["empty.eml"] == "failed"

    hotel = top(data_dir, "What is the hotel limit per night?")
    assert hotel["documentPath"] == "handbook.epub"
    assert hotel["locator"]["chapter"] == "Expenses"
    badge = top(data_dir, "新员工在哪里领取工牌")
    assert badge["documentPath"] == "handbook.epub"
    assert badge["locator"]["chapter"] == "入职须知"

    parking = top(data_dir, "Where do visitors park?")
    assert parking["documentPath"] == "parking.eml"
    assert parking["documentTitle"] == "Parking rules"
    travel = top(data_dir, "一线城市住宿标准每晚多少钱")
    assert travel["documentPath"] == "travel.eml"
    assert travel["documentTitle"] == "差旅报销规定"
