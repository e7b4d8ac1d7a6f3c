"""The main screens in Chinese carry no English sentence that is not data: failed documents,
an unreachable web page, a degraded vector channel, zero results, a failed connection test and
a failed chat reply all read in Chinese (the backend sends codes; the GUI words them)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.methods import CHAT_MODEL_UPDATE, EMBEDDING_UPDATE, SETTINGS_UPDATE
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.ocrgen import png
from tests.servers.httpserver import Reply, serve
from tests.ui.test_chat_view import wait_call
from tests.ui.test_workspace import ask, create_library_with_folder, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]

#: Three Latin words in a row: a sentence, not a name.
SENTENCE = re.compile(r"[A-Za-z]{2,}(?:[ ,'’]+[A-Za-z]{2,}){2,}")
#: Data: paths, file names, addresses (anything with a slash or a dot inside a token).
DATA = re.compile(r"\S*[/\\.:]\S*[A-Za-z0-9]\S*")


def english_sentences(text: str) -> list[str]:
    text = DATA.sub(" ", html.unescape(re.sub(r"<[^>]+>", " ", text)))
    return SENTENCE.findall(text)


def visible_texts(root: QtWidgets.QWidget, data_columns: dict[int, set[int]]) -> list[str]:
    """What a person reads in ``root``: labels, buttons, titles, tabs, placeholders, tooltips,
    combo items, table headers and the non-data cells of tables."""
    texts: list[str] = [root.windowTitle()]
    for w in [root, *root.findChildren(QtWidgets.QWidget)]:
        if not w.isVisibleTo(root):
            continue
        texts.append(w.toolTip())
        if isinstance(w, QtWidgets.QLabel | QtWidgets.QAbstractButton):
            texts.append(w.text())
        elif isinstance(w, QtWidgets.QGroupBox):
            texts.append(w.title())
        elif isinstance(w, QtWidgets.QLineEdit | QtWidgets.QPlainTextEdit):
            texts.append(w.placeholderText())
        elif isinstance(w, QtWidgets.QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QtWidgets.QTabWidget):
            texts += [w.tabText(i) for i in range(w.count())]
        elif isinstance(w, QtWidgets.QTextBrowser) and w.objectName() != "data":
            texts.append(w.toPlainText())
        elif isinstance(w, QtWidgets.QTableView) and w.model() is not None:
            # (List views hold names people gave: libraries, conversations.)
            model = w.model()
            skip = data_columns.get(id(model), set())
            for col in range(model.columnCount(QtCore.QModelIndex())):
                texts.append(str(model.headerData(col, QtCore.Qt.Orientation.Horizontal) or ""))
                if col in skip:
                    continue
                for row in range(min(model.rowCount(QtCore.QModelIndex()), 50)):
                    texts.append(str(model.data(model.index(row, col)) or ""))
                    tip = model.data(model.index(row, col), QtCore.Qt.ItemDataRole.ToolTipRole)
                    texts.append(str(tip or ""))
    return texts


def assert_chinese(root: QtWidgets.QWidget, data_columns: dict[int, set[int]]) -> None:
    found = sorted({s for t in visible_texts(root, data_columns) for s in english_sentences(t)})
    assert not found, f"English sentences in the Chinese {root.__class__.__name__}: {found}"


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
    assert (tasks.bar.value(), tasks.bar.maximum()) == (latest.done, max(1, latest.total))
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
    view.input.setPlainText("年假怎么结转？")
    with qtbot.waitSignal(view.reply_finished, timeout=30_000):
        view.send()
    assert "失败" in view.transcript.toPlainText()
    assert_chinese(win, {id(view.citations): {0, 1, 4}})
    shoot(win, "zh-chat-failed")
