"""Keyboard and mouse habits, each against the real GUI over a real backend: Enter sends and
Shift+Enter breaks the line, Ctrl+Enter searches, Tab leaves tables and reaches the document
table and paging, Delete never offers to delete a library from another table, confirmations
default to Cancel and name what they act on, dropped files and folders become sources, document
rows have a context menu and a double-click, [n] in an answer opens that citation, and the
transcript follows a streaming answer unless the reader scrolled up."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.servers.chatserver import ChatScript, chat_server
from tests.ui.test_chat_view import chat_with
from tests.ui.test_workspace import create_library_with_folder, open_window

pytestmark = [pytest.mark.gui, pytest.mark.integration]
KEY = QtCore.Qt.Key
MOD = QtCore.Qt.KeyboardModifier


@pytest.fixture
def win(qtbot: QtBot, data_dir: Path) -> MainWindow:
    window = open_window(qtbot, data_dir, "en")
    yield window  # type: ignore[misc]
    window.link.shutdown()
    set_language("en")


def test_enter_sends_shift_enter_breaks_the_line_and_the_first_question_titles_it(
    qtbot: QtBot, win: MainWindow
) -> None:
    script = ChatScript(turns=[[{"text": "Fine, thanks."}]])
    with chat_server(script) as base:
        chat_with(qtbot, win, base)
        view = win.chat_view
        qtbot.mouseClick(view.new_button, QtCore.Qt.MouseButton.LeftButton)
        view.input.setFocus()
        qtbot.keyClicks(view.input, "how are")
        qtbot.keyClick(view.input, KEY.Key_Return, MOD.ShiftModifier)
        qtbot.keyClicks(view.input, "you")
        assert view.input.toPlainText() == "how are\nyou", "Shift+Enter starts a new line"
        assert view.request_id is None and not script.requests, "and sends nothing"
        with qtbot.waitSignal(view.reply_finished, timeout=20_000):
            qtbot.keyClick(view.input, KEY.Key_Return)
        assert view.input.toPlainText() == ""
        assert "Fine, thanks." in view.transcript.toPlainText()
        qtbot.waitUntil(lambda: view.conversations.rowCount() == 1, timeout=5_000)
        assert view.conversations.rows[0].title == "how are you", "titled from the question"


def test_ctrl_enter_searches_in_the_workbench(
    qtbot: QtBot, win: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    win.open_workbench()
    bench = win.workbench
    assert bench is not None
    qtbot.keyClicks(bench.query, "annual leave")
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        qtbot.keyClick(bench.query, KEY.Key_Return, MOD.ControlModifier)
    assert bench.results.rowCount() >= 1
    assert bench.query.toPlainText() == "annual leave", "Ctrl+Enter adds no line break"
    assert bench.preview.isVisible() and bench.results.rows[0].snippet[:20] in (
        bench.preview.toPlainText()
    ), "the selected result's snippet reads in full without scrolling sideways"
    bench.reject()


def test_tab_leaves_tables_and_reaches_the_document_table_and_paging(
    qtbot: QtBot, win: MainWindow, tmp_path: Path
) -> None:
    win.new_library()
    dialog = win.name_dialog
    assert dialog is not None
    dialog.name_edit.setText("Many")
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.current_library() is not None, timeout=5_000)
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(105):
        (folder / f"note{i:03}.md").write_text(f"# Note {i}\n\nLine {i}.\n", encoding="utf-8")
    tab = win.documents_tab
    tab.add_source("folder", str(folder))
    qtbot.waitUntil(lambda: tab.total == 105, timeout=60_000)
    qtbot.waitUntil(tab.next_button.isEnabled, timeout=5_000)
    win.activateWindow()
    tab.source_view.setFocus()
    seen: list[QtWidgets.QWidget] = []
    assert win.focusWidget() is tab.source_view
    for _ in range(25):
        qtbot.keyClick(win.focusWidget(), KEY.Key_Tab)
        seen.append(win.focusWidget())
        if seen[-1] is tab.document_view:
            break
    assert tab.filter_box in seen and tab.next_button in seen, "paging is reachable"
    assert seen[-1] is tab.document_view, "Tab leaves the sources table and reaches documents"
    assert seen.index(tab.filter_box) < seen.index(tab.next_button), "in reading order"
    qtbot.keyClick(tab.document_view, KEY.Key_Tab)
    assert win.focusWidget() is not tab.document_view, "no trap in a table"


def test_delete_in_the_document_table_never_offers_to_delete_the_library(
    qtbot: QtBot, win: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    tab = win.documents_tab
    win.activateWindow()
    tab.document_view.setFocus()
    tab.document_view.selectRow(0)
    qtbot.keyClick(tab.document_view, KEY.Key_Delete)
    qtbot.wait(200)
    assert win.delete_box is None, "Delete in the document table does not delete a library"
    win.list_view.setFocus()
    qtbot.keyClick(win.list_view, KEY.Key_Delete)
    qtbot.waitUntil(lambda: win.delete_box is not None and win.delete_box.isVisible())
    box = win.delete_box
    assert box is not None
    assert box.defaultButton().text() == "Cancel" and "Handbook" in box.text()
    qtbot.keyClick(box, KEY.Key_Return)  # the default answer keeps the library
    qtbot.waitUntil(lambda: not box.isVisible())
    qtbot.wait(300)
    assert win.model.rowCount() == 1


def test_remove_source_asks_naming_it_and_defaults_to_cancel(
    qtbot: QtBot, win: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    tab = win.documents_tab
    tab.source_view.selectRow(0)
    tab.remove_source()
    box = tab.remove_box
    assert box is not None and box.isVisible()
    assert str(tmp_path / "docs") in box.text()
    assert box.defaultButton().text() == "Cancel"
    assert box.property("confirmButton").text() == "Remove “docs”"
    qtbot.keyClick(box, KEY.Key_Return)
    qtbot.waitUntil(lambda: not box.isVisible())
    qtbot.wait(300)
    assert tab.sources.rowCount() == 1 and tab.documents.rowCount() == 2, "nothing removed"


def test_dropping_files_and_folders_imports_them(
    qtbot: QtBot, win: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    tab = win.documents_tab
    extra = tmp_path / "dropped"
    extra.mkdir()
    (extra / "a.md").write_text("# Dropped folder\n\nA dropped note.\n", encoding="utf-8")
    single = tmp_path / "single.md"
    single.write_text("# Dropped file\n\nA single dropped file.\n", encoding="utf-8")
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(extra)), QtCore.QUrl.fromLocalFile(str(single))])
    point = QtCore.QPointF(tab.document_view.geometry().center())
    actions = QtCore.Qt.DropAction.CopyAction
    enter = QtGui.QDragEnterEvent(
        point.toPoint(), actions, mime, QtCore.Qt.MouseButton.LeftButton, MOD.NoModifier
    )
    QtWidgets.QApplication.sendEvent(tab, enter)
    assert enter.isAccepted(), "the pane accepts files and folders"
    drop = QtGui.QDropEvent(point, actions, mime, QtCore.Qt.MouseButton.LeftButton, MOD.NoModifier)
    QtWidgets.QApplication.sendEvent(tab, drop)
    qtbot.waitUntil(lambda: tab.sources.rowCount() == 3, timeout=10_000)
    kinds = sorted(s.kind for s in tab.sources.rows)
    assert kinds == ["file", "folder", "folder"]
    qtbot.waitUntil(lambda: tab.documents.rowCount() == 4, timeout=20_000)


def test_document_rows_have_a_context_menu_and_a_double_click(
    qtbot: QtBot, win: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    tab = win.documents_tab
    view = tab.document_view
    assert view.contextMenuPolicy() == QtCore.Qt.ContextMenuPolicy.ActionsContextMenu
    labels = [a.text() for a in view.actions()]
    assert "Copy path" in labels and "Document details…" in labels
    view.selectRow(0)
    doc = tab.documents.rows[0]
    tab.row_actions.copy_action.trigger()
    assert QtGui.QGuiApplication.clipboard().text() == str(tmp_path / "docs" / doc.path)
    rect = view.visualRect(tab.documents.index(0, 0))
    qtbot.mouseClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    box = tab.row_actions.details_box
    if tab.row_actions.chunk_view:
        return  # double-click opens the chunk view there (its own tests)
    assert box is not None and box.isVisible() and doc.path in box.text()
    box.accept()


def test_a_citation_marker_opens_its_context(qtbot: QtBot, win: MainWindow, tmp_path: Path) -> None:
    create_library_with_folder(qtbot, win, tmp_path)
    script = ChatScript(turns=[[{"text": "One night costs at most 600 yuan [1]."}]])
    with chat_server(script) as base:
        chat_with(qtbot, win, base)
        view = win.chat_view
        qtbot.waitUntil(lambda: len(view.selected) == 1, timeout=5_000)
        view.popover.always.setChecked(True)
        view.input.setPlainText("出差住宿一线城市每晚多少钱？")
        with qtbot.waitSignal(view.reply_finished, timeout=20_000):
            view.send()
    assert view.citations.rowCount() >= 1
    assert view.reference.toPlainText() == ""
    cursor = view.transcript.document().find("[1]")
    assert not cursor.isNull() and cursor.charFormat().isAnchor(), "the marker is a link"
    cursor.setPosition(cursor.selectionStart() + 1)
    point = view.transcript.cursorRect(cursor).center()
    qtbot.mouseClick(view.transcript.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=point)
    qtbot.waitUntil(lambda: bool(view.reference.toPlainText()), timeout=5_000)
    assert view.citation_view.currentIndex().row() == 0


def test_the_transcript_follows_a_streaming_answer_unless_scrolled_up(
    qtbot: QtBot, win: MainWindow
) -> None:
    view = win.chat_view
    win.top_tabs.setCurrentWidget(view)
    qtbot.waitUntil(view.transcript.isVisible)
    bar = view.transcript.verticalScrollBar()
    view.request_id = "stream-under-test"
    for i in range(80):
        view._on_delta({"requestId": "stream-under-test", "delta": f"line {i}\n"})
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=2_000)
    assert bar.value() == bar.maximum(), "it follows the answer"
    bar.setValue(10)  # the reader scrolls up
    for i in range(20):
        view._on_delta({"requestId": "stream-under-test", "delta": f"more {i}\n"})
        qtbot.wait(5)
    assert bar.value() == 10, "it stays where the reader is"
    bar.setValue(bar.maximum())  # back at the bottom: following again
    for i in range(10):
        view._on_delta({"requestId": "stream-under-test", "delta": f"last {i}\n"})
        qtbot.wait(5)
    assert bar.value() == bar.maximum() and "last 9" in view.transcript.toPlainText()
    view.request_id = None
