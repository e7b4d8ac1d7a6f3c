"""E-mail attachments in the real window over a real backend (issue 35): the documents list
shows a message's attachments as "message › attachment name", and a workbench hit in an
attachment reads its locator back to the message in the user's language."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from openpyxl import Workbook
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.widgets.locator import format_locator, path_text
from tests.bookgen import make_eml
from tests.ui.helpers import ask, create_library, open_window, shoot


def phone_book() -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "Contacts"
    sheet.append(["Name", "Extension"])
    sheet.append(["Quentin Okapi", 4411])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_an_attachments_locator_and_path_read_in_both_languages() -> None:
    locator = Locator.from_wire({"message": "报销规定", "sheet": "标准", "rowStart": 2})
    try:
        set_language("zh")
        assert format_locator(locator) == "邮件“报销规定”的附件 · 工作表“标准” · 第 2 行"
        assert path_text("mails/a.eml//标准.xlsx") == "mails/a.eml › 附件 标准.xlsx"
        set_language("en")
        assert format_locator(locator) == 'attachment of "报销规定" · Sheet "标准" · row 2'
        assert path_text("mails/a.eml//标准.xlsx") == "mails/a.eml › attachment 标准.xlsx"
        assert path_text("https://example.com//x") == "https://example.com//x"
    finally:
        set_language("en")


@pytest.mark.gui
@pytest.mark.integration
def test_the_window_lists_attachments_and_locates_a_hit_in_its_message(
    qtbot: QtBot, data_dir: Path, tmp_path: Path
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        create_library(qtbot, win, "Mail")
        folder = tmp_path / "docs" / "mails"
        folder.mkdir(parents=True)
        message = make_eml(
            "Office handbook", "The file is attached.", attachments=[("phones.xlsx", phone_book())]
        )
        (folder / "handbook.eml").write_bytes(message)
        tab = win.documents_tab
        tab.add_source("folder", str(tmp_path / "docs"))
        qtbot.waitUntil(lambda: tab.documents.rowCount() == 2, timeout=20_000)
        shown = {tab.documents.data(tab.documents.index(r, 0)) for r in range(2)}
        assert shown == {"mails/handbook.eml", "mails/handbook.eml › 附件 phones.xlsx"}
        qtbot.waitUntil(
            lambda: all(d.status.fulltext == "done" for d in tab.documents.rows), timeout=20_000
        )
        bench = ask(qtbot, win, "Quentin Okapi extension")
        assert bench.results.rowCount() >= 1
        assert bench.results.data(bench.results.index(0, 1)) == (
            "mails/handbook.eml › 附件 phones.xlsx"
        )
        assert bench.results.data(bench.results.index(0, 2)).startswith(
            "邮件“Office handbook”的附件 · 工作表“Contacts” · 第 2 行"
        )
        shoot(win, "mail-attachment-documents-zh")
        shoot(bench, "mail-attachment-hit-zh")
    finally:
        win.link.shutdown()
        set_language("en")
