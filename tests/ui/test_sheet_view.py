"""A spreadsheet hit reads as rows under their header wherever a person sees it (issue 35): a
real XLSX (openpyxl) synced by a real backend, asked in the workbench — the results' snippet cell
says "城市: Shenzhen · 住宿标准: 650 · …" instead of a run of pipes and dashes, the preview and
"View chunk" show a table with its header, the chunk viewer shows the chunk as a table until it
is edited, and the chat's sources table reads the same; "Open source" says where the hit is; the
locator is in the user's language."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from openpyxl import Workbook
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.chat.citations import CITATION_COLUMNS, SNIPPET, citation_tooltip
from goodbuddy_kb.ui.chat.transcript import TranscriptView, transcript_html
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.answers import stored_answer
from tests.ui.helpers import MakeLibrary, ask, open_from_row, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]

ROW = "城市: Shenzhen · 住宿标准: 650 · 伙食补贴: 120"


def travel_xlsx() -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "差旅标准"
    sheet.append(["城市", "住宿标准", "伙食补贴"])
    for i in range(20):
        sheet.append([f"城市{i}", 500 + i, 100])
    sheet.append(["Shenzhen", 650, 120])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def tables(document: QtGui.QTextDocument) -> list[list[list[str]]]:
    """Every table a rich-text view shows, as rows of cell texts."""
    found: list[list[list[str]]] = []
    frames = [document.rootFrame()]
    while frames:
        frame = frames.pop(0)
        if isinstance(frame, QtGui.QTextTable):
            found.append(
                [
                    [
                        frame.cellAt(r, col).firstCursorPosition().block().text()
                        for col in range(frame.columns())
                    ]
                    for r in range(frame.rows())
                ]
            )
        frames.extend(frame.childFrames())
    return found


@pytest.mark.parametrize("language", ["en", "zh"])
def test_a_spreadsheet_hit_reads_as_rows_under_their_header(
    qtbot: QtBot,
    opened_log: Path,
    window: MainWindow,
    make_library: MakeLibrary,
    language: str,
) -> None:
    make_library({"travel.xlsx": travel_xlsx()}, vectors=False)
    set_language(language)
    bench = ask(qtbot, window, "Shenzhen")
    assert bench.results.rowCount() == 1
    snippet = bench.results.data(bench.results.index(0, 7))
    assert ROW in snippet and "---" not in snippet and "|" not in snippet
    locator = bench.results.data(bench.results.index(0, 2))
    assert locator == (
        'Sheet "差旅标准" · rows 2–22' if language == "en" else "工作表“差旅标准” · 第 2–22 行"
    )
    preview = tables(bench.preview.document())
    assert preview == [[["城市", "住宿标准", "伙食补贴"], ["Shenzhen", "650", "120"]]]
    qtbot.mouseClick(bench.view_chunk, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bench.tabs.currentWidget() is bench.chunk_view, timeout=5_000)
    whole = tables(bench.chunk_view.document())[-1]  # after the citation header (a table too)
    assert whole[0] == ["城市", "住宿标准", "伙食补贴"] and len(whole) == 22
    assert ["Shenzhen", "650", "120"] in whole
    assert locator in bench.chunk_view.toPlainText()
    qtbot.mouseClick(bench.open_source, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: opened_log.exists() and "travel.xlsx" in opened_log.read_text())
    qtbot.waitUntil(lambda: locator in bench.opened.text(), timeout=5_000)
    assert bench.opened.text().startswith(
        "Opened the source: " if language == "en" else "已打开来源："
    )
    # viewing a chunk next, the outcome of the last opening does not stay under the results
    qtbot.mouseClick(bench.view_chunk, QtCore.Qt.MouseButton.LeftButton)
    assert bench.opened.text() == ""
    shoot(bench, f"sheet-hit-{language}")
    bench.reject()

    dialog = open_from_row(qtbot, window, "travel.xlsx")
    pane = dialog.pane
    assert pane.reader.isVisible() and not pane.editor.isVisible()
    [table] = tables(pane.reader.document())
    assert table[0] == ["城市", "住宿标准", "伙食补贴"] and table[-1] == ["Shenzhen", "650", "120"]
    shoot(dialog, f"sheet-chunk-{language}")
    pane.edit_button.click()
    assert pane.editor.isVisible() and not pane.reader.isVisible()
    assert pane.editor.toPlainText().startswith("| 城市 | 住宿标准 | 伙食补贴 |\n| --- |")
    pane.cancel_edit_button.click()
    assert pane.reader.isVisible()
    dialog.reject()

    citation = c.Citation(
        library_id=bench.results.row_at(0).library_id,
        document_id=bench.results.row_at(0).document_id,
        chunk_id=bench.results.row_at(0).chunk_id,
        relevance=0.5,
        channels=["fts"],
        document_title="travel.xlsx",
        locator=bench.results.row_at(0).locator,
        snippet=bench.results.row_at(0).snippet,
    )
    assert CITATION_COLUMNS[SNIPPET].text(citation) == ROW + " …"  # the other rows left out
    assert citation_tooltip(citation).endswith(ROW + " …") and locator in citation_tooltip(citation)
    QtWidgets.QApplication.processEvents()


def test_an_answer_quoting_a_sheet_shows_its_rows_as_a_table(qtbot: QtBot) -> None:
    """The chat's evidence-only answer (no chat model) quotes a table hit's snippet: header and
    row read as a table in the transcript, the citation marker still a link."""
    snippet = "| 城市 | 住宿标准 | 伙食补贴 |\n| --- | --- | --- |\n| Shenzhen | 650 | 120 |\n…"
    content = f"未配置对话模型。\n\n[1] travel —\n{snippet}"
    message = stored_answer(
        content, snippet, "travel", {"sheet": "差旅标准", "rowStart": 2, "rowEnd": 22}
    )
    view = TranscriptView()
    qtbot.addWidget(view)
    view.show_html(transcript_html([message], None))
    assert tables(view.document()) == [
        [["城市", "住宿标准", "伙食补贴"], ["Shenzhen", "650", "120"]]
    ]
    assert "href" in view.toHtml() and "| ---" not in view.toPlainText()
    # the answer starts on the line under "Assistant", with no empty line between
    lines = view.toPlainText().split("\n")
    assert lines[0].startswith("Assistant") and lines[1].strip(), lines[:3]
    block = view.document().findBlockByNumber(1)
    assert block.text().startswith(lines[1]) and block.blockFormat().topMargin() == 0
