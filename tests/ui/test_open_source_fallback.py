"""When nothing on this system can open files, "Open source" offers "Copy path" and "Show in
folder" instead of only an error — from the documents list (a failed document too) and from a
chat citation. Through the real window over a real backend; only the platform's programs are
replaced at the process boundary: the opener by a name that does not exist, the file manager by
a command that records what it was asked to show."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.main_process.opener import ENV_OPENER, ENV_REVEALER
from goodbuddy_kb.qt.widgets import QtCore, QtGui
from goodbuddy_kb.ui.chat.view import ChatView
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.helpers import (
    ask_chat,
    create_library_with_folder,
    open_window,
    searching_first,
    shoot,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.fixture
def no_opener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No program opens files; the file manager is a command that records what it shows."""
    log = tmp_path / "revealed.log"
    script = tmp_path / "record-revealer"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_OPENER, str(tmp_path / "no-such-opener"))
    monkeypatch.setenv(ENV_REVEALER, str(script))
    return log


def cited_answer(qtbot: QtBot, win: MainWindow, tmp_path: Path, reply: str) -> ChatView:
    """The handbook library, a question searched first, the model's ``reply`` citing [1], and
    that citation selected in the sources pane."""
    create_library_with_folder(qtbot, win, tmp_path)
    with chat_server(ChatScript(turns=[[{"text": reply}]])) as base:
        view = searching_first(qtbot, win, base)
        ask_chat(qtbot, view, "出差住宿一线城市每晚多少钱？")
    assert view.citations.rowCount() >= 1
    view.citation_view.setCurrentIndex(QtCore.QModelIndex())
    # nothing chosen, nothing to show or open (the buttons did nothing, found under Xvfb)
    assert not view.open_button.isEnabled()
    view.citation_view.selectRow(0)
    assert view.open_button.isEnabled()
    return view


def test_no_opener_offers_copy_path_and_show_in_folder_for_a_failed_document(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, no_opener: Path
) -> None:
    win = open_window(qtbot, data_dir, "en")
    try:
        create_library_with_folder(qtbot, win, tmp_path)
        (tmp_path / "docs" / "empty.md").write_bytes(b"")
        tab = win.documents_tab
        tab.source_actions.sync_now()
        qtbot.waitUntil(lambda: any(d.error for d in tab.documents.rows), timeout=20_000)
        row = next(i for i, d in enumerate(tab.documents.rows) if d.path == "empty.md")
        tab.document_view.selectRow(row)
        assert tab.open_source_button.isEnabled(), "a failed document can be opened"
        qtbot.mouseClick(tab.open_source_button, QtCore.Qt.MouseButton.LeftButton)
        opener = tab.row_actions.opener
        path = tmp_path / "docs" / "empty.md"
        qtbot.waitUntil(lambda: opener.box is not None and opener.box.isVisible(), timeout=10_000)
        box = opener.box
        assert box is not None and "no program to open files" in box.text()
        assert str(path) in box.informativeText()
        shoot(box, "open-source-no-opener-en")
        assert opener.copy_button is not None and opener.copy_button.text() == "Copy path"
        assert opener.reveal_button is not None and opener.reveal_button.text() == "Show in folder"
        QtGui.QGuiApplication.clipboard().clear()
        qtbot.mouseClick(opener.copy_button, QtCore.Qt.MouseButton.LeftButton)
        assert QtGui.QGuiApplication.clipboard().text() == str(path)
        # Again, this time "Show in folder": the backend shows that file (and only that one).
        # (a late refresh of the list may have moved the selection: choose the row again)
        again = next(i for i, d in enumerate(tab.documents.rows) if d.path == "empty.md")
        tab.document_view.selectRow(again)
        tab.row_actions.open_action.trigger()  # (the row menu's "Open source")
        qtbot.waitUntil(lambda: opener.box is not box and opener.box is not None, timeout=20_000)
        assert opener.reveal_button is not None
        qtbot.mouseClick(opener.reveal_button, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(no_opener.exists, timeout=10_000)
        qtbot.waitUntil(lambda: bool(no_opener.read_text().strip()), timeout=5_000)
        assert no_opener.read_text().splitlines() == [str(path)]
    finally:
        win.link.shutdown()
        set_language("en")


def test_a_citation_that_cannot_be_opened_offers_the_same_in_chinese(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, no_opener: Path
) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        view = cited_answer(qtbot, win, tmp_path, "每晚不超过六百元 [1]。")
        citation = view.citations.rows[0]
        qtbot.mouseClick(view.open_button, QtCore.Qt.MouseButton.LeftButton)
        opener = view.sources.opener
        qtbot.waitUntil(lambda: opener.box is not None and opener.box.isVisible(), timeout=10_000)
        assert opener.box is not None and "没有可用来打开文件的程序" in opener.box.text()
        assert opener.copy_button is not None and opener.copy_button.text() == "复制路径"
        assert opener.reveal_button is not None
        assert opener.reveal_button.text() == "在文件夹中显示"
        shoot(opener.box, "open-source-no-opener-zh")
        qtbot.mouseClick(opener.copy_button, QtCore.Qt.MouseButton.LeftButton)
        name = next(
            d.path for d in win.documents_tab.documents.rows if d.id == citation.document_id
        )
        assert QtGui.QGuiApplication.clipboard().text() == str(tmp_path / "docs" / name)
    finally:
        win.link.shutdown()
        set_language("en")


def test_an_opener_that_fails_is_not_reported_as_opened(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An opener that answers it could not (``xdg-open`` with no program for the file's type)
    read "Opened the source" (seen under Xvfb). Now it offers the path; the passage shown beside
    the citations stays; and when showing the folder fails too, the offer comes back without
    it, the path still there to copy."""
    failing = tmp_path / "failing"
    failing.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(3)\n", encoding="utf-8")
    failing.chmod(failing.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_OPENER, str(failing))
    monkeypatch.setenv(ENV_REVEALER, str(failing))
    win = open_window(qtbot, data_dir, "en")
    try:
        view = cited_answer(qtbot, win, tmp_path, "At most 600 yuan a night [1].")
        pane = view.sources
        qtbot.waitUntil(lambda: bool(pane.reference.toPlainText().strip()), timeout=5_000)
        passage = pane.reference.toPlainText()
        qtbot.mouseClick(view.open_button, QtCore.Qt.MouseButton.LeftButton)
        opener = pane.opener
        qtbot.waitUntil(lambda: opener.box is not None and opener.box.isVisible(), timeout=10_000)
        box = opener.box
        assert box is not None and "failing could not open it (exit status 3)" in box.text()
        assert "Opened" not in pane.opened.text() and "could not open" in pane.opened.text()
        assert opener.copy_button is not None and opener.reveal_button is not None
        qtbot.mouseClick(opener.reveal_button, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: opener.box is not box and opener.box is not None, timeout=10_000)
        again = opener.box
        assert again is not None and again.isVisible()
        assert again.text().count("could not open it") == 1
        assert "failing could not show it in its folder (exit status 3)" in again.text(), (
            "the folder failed too, and says so"
        )
        assert opener.reveal_button is None, "not offered again"
        assert opener.copy_button is not None
        QtGui.QGuiApplication.clipboard().clear()
        qtbot.mouseClick(opener.copy_button, QtCore.Qt.MouseButton.LeftButton)
        assert QtGui.QGuiApplication.clipboard().text() == again.informativeText()
        assert pane.opened.text().startswith("Copied")
        assert pane.reference.toPlainText() == passage, "the passage is not written over"
    finally:
        win.link.shutdown()
        set_language("en")
