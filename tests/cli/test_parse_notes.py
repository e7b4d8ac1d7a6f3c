"""What a parser wants a person to know about a document it read whole — hidden sheets that were
skipped — is kept with the document and shown: in the CLI's list, and in the window's reason
column in the user's language."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from openpyxl import Workbook

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.ui.documents.columns import reason
from goodbuddy_kb.ui.i18n import set_language
from tests.cli.runner import run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def book_with_a_hidden_sheet() -> bytes:
    book = Workbook()
    shown = book.active
    assert shown is not None
    shown.title = "Rates"
    shown.append(["City", "Hotel limit"])
    shown.append(["Zhuhai", 777])
    secret = book.create_sheet("Salaries")
    secret.append(["Name", "Salary"])
    secret.append(["Bob", 1])
    secret.sheet_state = "hidden"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_skipped_hidden_sheet_is_said_in_the_list(data_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rates.xlsx").write_bytes(book_with_a_hidden_sheet())
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    listed = run(data_dir, "documents", "L")
    assert "(note: hidden sheets were skipped: Salaries)" in listed.stdout, listed.stdout
    wire = json.loads(run(data_dir, "--json", "documents", "L").stdout)["documents"][0]
    assert wire["note"] == "hidden sheets were skipped: Salaries"
    assert wire["noteCode"] == "parse.hidden_sheets" and wire["noteParams"] == {"names": "Salaries"}
    doc = c.Document.model_validate(wire)
    try:
        set_language("zh")
        assert reason(doc) == "ⓘ 已跳过隐藏的工作表：Salaries"
        set_language("en")
        assert reason(doc) == "ⓘ hidden sheets were skipped: Salaries"
    finally:
        set_language("en")


def test_a_note_that_is_only_its_title_says_so(data_dir: Path, tmp_path: Path) -> None:
    """ "# 待办事项" alone failed with "no text content", as if the file had been misread."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "stub.md").write_text("# 待办事项\n\n## 下周\n", encoding="utf-8")
    (docs / "blank.txt").write_text("  \n", encoding="utf-8")
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    listed = run(data_dir, "documents", "L").stdout
    assert "stub.md  — only headings, no text under them" in listed, listed
    assert "blank.txt  — empty file" in listed, listed
    wire = json.loads(run(data_dir, "--json", "documents", "L").stdout)["documents"]
    stub = c.Document.model_validate(next(d for d in wire if d["path"] == "stub.md"))
    try:
        set_language("zh")
        assert "只有标题，标题下没有正文" in reason(stub)
    finally:
        set_language("en")
