"""The walk over every screen and dialog in Chinese with data in it — a library with documents
(a damaged PDF and an empty file among them), a finished and a failed task, diagnostics with
events, the workbench with results, a document's chunks and details, the model connections,
and a chat with an answer — finds no word in Latin letters outside data and an allow-list of
names (``tests/ui/sweep.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts.methods import EMBEDDING_UPDATE, LIBRARY_REBUILD, VECTORS_REBUILD
from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.documents.columns import DOCUMENT_COLUMNS
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.settings.diagnostics import DiagnosticsDialog
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.helpers import (
    MakeLibrary,
    ask,
    ask_chat,
    handbook,
    idle,
    open_from_row,
    open_window,
    searching_first,
    shoot,
    wait_call,
)
from tests.ui.sweep import assert_no_english

pytestmark = [pytest.mark.gui, pytest.mark.integration]

#: A PDF whose body the parser cannot read (its failure has a program's name, PdfStreamError).
BROKEN_PDF = b"%PDF-1.4\n1 0 obj\n<< /Length 99999 >>\nstream\nbroken\n" + b"\x00" * 64


def test_every_screen_in_chinese_has_no_latin_word_outside_the_allow_list(
    qtbot: QtBot, data_dir: Path, make_library: MakeLibrary
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        walk(qtbot, win, make_library)
    finally:
        win.link.shutdown()
        set_language("en")


def walk(qtbot: QtBot, win: MainWindow, make_library: MakeLibrary) -> None:
    files: dict[str, str | bytes] = {**handbook(), "损坏.pdf": BROKEN_PDF, "empty.md": b""}
    make_library(files, win=win, name="手册", vectors=False)
    idle(qtbot, win)
    library_id = win.current_library_id()
    assert library_id is not None
    # a finished rebuild with failed documents, then a vector build that fails
    wait_call(qtbot, win, LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id))
    idle(qtbot, win)
    unreachable = m.EmbeddingConnection(
        kind="openai-compatible", base_url="http://127.0.0.1:9", model="any", timeout_s=2
    )
    wait_call(qtbot, win, EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=unreachable))
    wait_call(qtbot, win, VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id))
    idle(qtbot, win)
    states = {x.state for x in win.tasks_tab.model.rows}
    assert {"completed", "failed"} <= states, states
    local = m.EmbeddingConnection(kind="local")  # the bundled model's name on the screens
    wait_call(qtbot, win, EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=local))
    tab = win.documents_tab
    tab.refresh()
    qtbot.waitUntil(lambda: "multilingual-e5-small" in tab.vector_label.text(), timeout=10_000)
    # data: document paths, source locations, and the names the local graph found in them
    entities = win.graph_tab.entity_list.entities
    data = {id(tab.documents): {0}, id(tab.sources): {1}, id(entities): {0}}
    for index in range(win.tabs.count()):
        win.tabs.setCurrentIndex(index)
        qtbot.wait(100)
        assert_no_english(win, data)
    win.tabs.setCurrentWidget(win.tasks_tab)
    shoot(win, "zh-sweep-tasks")
    win.tabs.setCurrentWidget(tab)
    shoot(win, "zh-sweep-documents")
    screens(qtbot, win, library_id)


def screens(qtbot: QtBot, win: MainWindow, library_id: str) -> None:
    """The dialogs and the workbench and chat, each with data in it."""
    win.open_diagnostics()
    dialog = win.diagnostics
    assert isinstance(dialog, DiagnosticsDialog)
    qtbot.waitUntil(lambda: dialog.recent.rowCount() >= 4, timeout=10_000)
    assert_no_english(dialog, {})
    shoot(dialog, "zh-sweep-diagnostics")
    dialog.reject()
    chunks = open_from_row(qtbot, win, "policy_zh.md")
    assert_no_english(chunks, {id(chunks.model): {2}})  # headings: the text's own
    chunks.reject()
    tab = win.documents_tab
    row = next(i for i, d in enumerate(tab.documents.rows) if d.path == "损坏.pdf")
    # the reason is a sentence; the parser's own name for the failure is in its tooltip
    error_column = next(
        i for i, col in enumerate(DOCUMENT_COLUMNS) if col.header_key == "col.error"
    )
    cell = tab.documents.index(row, error_column)
    assert tab.documents.data(cell) == "无法读取该 PDF（文件已损坏或不是预期的格式）"
    tip = str(tab.documents.data(cell, QtCore.Qt.ItemDataRole.ToolTipRole))
    assert "\n技术名称：Pdf" in tip, tip
    tab.document_view.selectRow(row)
    tab.row_actions.show_details()
    box = tab.row_actions.details_box
    assert box is not None
    assert_no_english(box, {})
    box.accept()
    win.open_connections()
    assert win.connections is not None
    assert_no_english(win.connections, {})
    win.connections.reject()
    win.open_external_tools()
    assert win.external_tools is not None
    assert_no_english(win.external_tools, {})
    win.external_tools.reject()
    win.tabs.setCurrentWidget(win.graph_tab)
    qtbot.waitUntil(lambda: win.graph_tab.state.info is not None, timeout=10_000)
    win.graph_tab.edits.open_settings()
    graph_settings = win.graph_tab.dialog
    assert graph_settings is not None
    assert_no_english(graph_settings, {})
    graph_settings.reject()
    bench = ask(qtbot, win, "年假怎么结转")
    bench.context.setObjectName("data")
    assert_no_english(bench, {id(bench.results): {1, 2, 7}})
    bench.reject()
    script = ChatScript(turns=[[{"text": "年假可以结转到次年第一季度 [1]。"}]])
    with chat_server(script) as base:
        view = searching_first(qtbot, win, base)
        ask_chat(qtbot, view, "年假怎么结转？", timeout=30_000)
    assert "结转" in view.transcript.toPlainText()
    entities = win.graph_tab.entity_list.entities  # the names the graph found: data
    assert_no_english(win, {id(view.citations): {0, 1, 4}, id(entities): {0}})
    shoot(win, "zh-sweep-chat")
