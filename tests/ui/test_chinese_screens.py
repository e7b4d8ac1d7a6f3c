"""The main screens in Chinese carry no English sentence that is not data: failed documents,
an unreachable web page, a degraded vector channel, zero results, a failed connection test and
a failed chat reply all read in Chinese (the backend sends codes; the GUI words them); the
workbench screenshots in Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.methods import CHAT_MODEL_UPDATE, EMBEDDING_UPDATE, SETTINGS_UPDATE
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.tasks.progress import bar_text
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.ocrgen import png
from tests.servers.httpserver import Reply, serve
from tests.ui.helpers import (
    MakeLibrary,
    ask,
    ask_chat,
    assert_chinese,
    create_library_with_folder,
    handbook,
    open_window,
    shoot,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def test_main_screens_in_chinese_have_no_english_sentences(
    qtbot: QtBot, data_dir: Path, tmp_path: Path
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        run_screens(qtbot, win, tmp_path)
    finally:
        win.link.shutdown()
        set_language("en")


def run_screens(qtbot: QtBot, win: MainWindow, tmp_path: Path) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "empty.md").write_bytes(b"")
    (bad / "blob.txt").write_bytes(bytes(range(256)) * 8)
    # a scan in a library with OCR off, and a torn image: both say why, in Chinese
    (bad / "scan.png").write_bytes(png(["Scanned words"]))
    (bad / "torn.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00torn" * 40)
    library_id = win.current_library_id()
    assert library_id is not None
    wait_call(
        qtbot,
        win,
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(library_id=library_id, ocr_enabled=False),
    )
    tab = win.documents_tab
    tab.add_source("folder", str(bad))
    with serve({"/gone": Reply(status=404, body=b"gone")}) as base:
        tab.add_source("web", f"{base}/gone")
        qtbot.waitUntil(lambda: tab.sources.rowCount() == 3, timeout=10_000)
        qtbot.waitUntil(lambda: sum(1 for d in tab.documents.rows if d.error) >= 5, timeout=20_000)
    wait_call(
        qtbot,
        win,
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="none")),
    )
    tab.refresh()
    qtbot.waitUntil(lambda: "未配置" in tab.vector_label.text(), timeout=5_000)
    qtbot.waitUntil(lambda: win.tasks_tab.model.rowCount() >= 3, timeout=5_000)
    # with no task selected and none at work, the bar shows the latest task's count, not 0/1
    tasks = win.tasks_tab
    qtbot.waitUntil(lambda: all(r.state not in ("queued", "running") for r in tasks.model.rows))
    tasks._update()
    latest = tasks.model.rows[0]
    if latest.total:
        assert (tasks.bar.value(), tasks.bar.maximum()) == (latest.done, latest.total)
    assert tasks.bar.text() == bar_text(latest) and "0/1" not in tasks.bar.text()
    # Documents: the path and title are data; every other column is ours.
    data = {id(tab.documents): {0}, id(tab.sources): {1}}
    errors = " ".join(str(d.error) for d in tab.documents.rows)
    assert "empty file" in errors and "HTTP 404" in errors, "the backend keeps its English"
    scan = next(d for d in tab.documents.rows if d.path == "scan.png")
    assert scan.ocr is not None and scan.ocr.status == "off" and scan.error_code == "ocr.off"
    assert_chinese(win, data)
    shoot(win, "zh-documents-failures")
    for index in range(win.tabs.count()):
        win.tabs.setCurrentIndex(index)
        qtbot.wait(50)
        assert_chinese(win, data)
    bench = ask(qtbot, win, "年假怎么结转")
    bench.context.setObjectName("data")  # the assembled context is the documents' own text
    assert "降级" in bench.diagnostics.toPlainText()
    assert_chinese(bench, {id(bench.results): {1, 2, 7}})
    bench.query.setPlainText("量子色动力学渐近自由")
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        bench.run()
    assert "没有结果" in bench.status.text()
    assert_chinese(bench, {id(bench.results): {1, 2, 7}})
    shoot(bench, "zh-workbench-zero")
    bench.reject()
    win.open_connections()
    dialog = win.connections
    assert dialog is not None
    dialog.rerank_url.setText("http://127.0.0.1:9")
    dialog.rerank_model.setText("rerank-v2")
    with qtbot.waitSignal(dialog.tested, timeout=20_000):
        dialog.test_rerank()
    assert "✗" in dialog.rerank_status.text()
    assert_chinese(dialog, {})
    shoot(dialog, "zh-connections-failed")
    dialog.reject()
    wait_call(
        qtbot,
        win,
        CHAT_MODEL_UPDATE,
        c.ChatUpdateRequest(
            connection=c.ChatConnection(
                kind="openai-compatible", base_url="http://127.0.0.1:9/v1", model="m"
            )
        ),
    )
    win.top_tabs.setCurrentWidget(win.chat_view)
    view = win.chat_view
    ask_chat(qtbot, view, "年假怎么结转？", timeout=30_000)
    assert "失败" in view.transcript.toPlainText()
    assert_chinese(win, {id(view.citations): {0, 1, 4}})
    shoot(win, "zh-chat-failed")


def test_chinese_screens(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    qapp: QtWidgets.QApplication,
    make_library: MakeLibrary,
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        make_library(handbook(), win=win)
        shoot(win, "main-light-zh")
        apply_theme(qapp, dark=True)
        bench = ask(qtbot, win, "年假怎么结转")
        shoot(bench, "workbench-dark-zh")
        bench.reject()
        apply_theme(qapp, dark=False)
    finally:
        win.link.shutdown()
        set_language("en")
