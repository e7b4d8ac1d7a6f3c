"""Settings → External AI tools (MCP) over a real backend: per-library switches that the backend
stores, the command and snippets with absolute paths, copy, and live recent-call counts.
Saves screenshots (en/zh, light/dark) to artifacts/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.external import ExternalCall, ExternalCallsRecordRequest
from goodbuddy_kb.contracts.methods import EXTERNAL_CALLS_RECORD, LIBRARY_CREATE, LIBRARY_LIST
from goodbuddy_kb.contracts.wire import EXTERNAL_CLIENT
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.settings.external_tools import ExternalToolsDialog
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.ui.helpers import backend_client, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def open_dialog(qtbot: QtBot, win: MainWindow) -> ExternalToolsDialog:
    menu = win.menuBar().actions()[0].menu()
    assert isinstance(menu, QtWidgets.QMenu)
    (action,) = [a for a in menu.actions() if a.text() == "&External AI tools (MCP)…"]
    action.trigger()
    dialog = win.external_tools
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_switches_command_snippet_and_recent_calls(
    qtbot: QtBot, window: MainWindow, data_dir: Path
) -> None:
    with backend_client(window) as client:
        for name in ("公司制度", "Manuals", "Private notes"):
            client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name=name))
    dialog = open_dialog(qtbot, window)
    qtbot.waitUntil(lambda: dialog.libraries.count() == 3, timeout=5_000)
    # at 760 px (an 800×600 screen) everything fits across: one unwrapped note made the page
    # wider than its view, which scrolls only up and down, cutting the intro and Copy buttons
    dialog.resize(760, 540)
    qtbot.wait(50)
    page = dialog.sections.widget()
    assert page.minimumSizeHint().width() <= dialog.sections.viewport().width()
    items = [dialog.libraries.item(i) for i in range(3)]
    assert [i.text() for i in items] == [
        "Manuals  —  Private to this app",
        "Private notes  —  Private to this app",
        "公司制度  —  Private to this app",
    ]
    assert all(i.checkState() == QtCore.Qt.CheckState.Unchecked for i in items), "off by default"

    # Keyboard: select "公司制度" and press space to switch it on; the backend stores it.
    dialog.libraries.setFocus()
    dialog.libraries.setCurrentRow(2)
    qtbot.keyClick(dialog.libraries, QtCore.Qt.Key.Key_Space)
    with backend_client(window) as client:

        def exposed() -> list[str]:
            libraries = client.call(LIBRARY_LIST, c.LibraryListRequest()).libraries
            return [lib.name for lib in libraries if lib.external_access]

        qtbot.waitUntil(lambda: exposed() == ["公司制度"], timeout=5_000)
        dialog.libraries.item(0).setCheckState(QtCore.Qt.CheckState.Checked)
        qtbot.waitUntil(lambda: exposed() == ["Manuals", "公司制度"], timeout=5_000)
    qtbot.waitUntil(
        lambda: dialog.libraries.item(0).text() == "Manuals  —  Available to external AI tools",
        timeout=5_000,
    )

    command = dialog.command.text()
    assert " mcp --data-dir " in command and str(data_dir) in command
    config = json.loads(dialog.snippet.toPlainText())
    entry = config["mcpServers"]["goodbuddy-kb"]
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).exists()
    assert entry["args"][-3:] == ["mcp", "--data-dir", str(data_dir)]
    qtbot.mouseClick(dialog.copy_snippet, QtCore.Qt.MouseButton.LeftButton)
    assert json.loads(QtWidgets.QApplication.clipboard().text()) == config
    assert "Copied" in dialog.copied.text()
    dialog.format.setCurrentIndex(dialog.format.findData("vscode"))
    vscode = json.loads(dialog.snippet.toPlainText())
    assert vscode["servers"]["goodbuddy-kb"]["type"] == "stdio"
    qtbot.mouseClick(dialog.copy_command, QtCore.Qt.MouseButton.LeftButton)
    assert QtWidgets.QApplication.clipboard().text() == command
    dialog.format.setCurrentIndex(0)

    # Calls recorded by an external-tool client show up without reopening the panel.
    qtbot.waitUntil(
        lambda: (
            "No external tool has called yet. Libraries available: 2." in dialog.calls_note.text()
        ),
        timeout=5_000,
    )
    with backend_client(window, EXTERNAL_CLIENT) as tool:
        calls = [
            ExternalCall(tool="knowledge_search", ok=True, ms=12.0),
            ExternalCall(tool="knowledge_search", ok=True, ms=14.0),
            ExternalCall(tool="knowledge_search", ok=False, error_code="not_found", ms=3.0),
            ExternalCall(tool="list_libraries", ok=True, ms=2.5),
        ]
        tool.call(EXTERNAL_CALLS_RECORD, ExternalCallsRecordRequest(calls=calls))
    qtbot.waitUntil(lambda: dialog.calls.item(1, 0) is not None, timeout=5_000)
    qtbot.waitUntil(lambda: dialog.calls.item(1, 0).text() == "3", timeout=5_000)
    assert dialog.calls.item(1, 1).text() == "1" and dialog.calls.item(1, 2).text() == "12.0 ms"
    assert dialog.calls.item(0, 0).text() == "1" and dialog.calls.item(2, 0).text() == "0"
    assert "4 calls since" in dialog.calls_note.text()
    # the rows say what each tool does; its own name is the tooltip
    search = dialog.calls.verticalHeaderItem(1)
    assert (search.text(), search.toolTip()) == ("Search", "knowledge_search")
    shoot(dialog, "mcp-light-en")
    app = QtWidgets.QApplication.instance()
    assert isinstance(app, QtWidgets.QApplication)
    apply_theme(app, dark=True)
    shoot(dialog, "mcp-dark-en")
    apply_theme(app, dark=False)
    dialog.accept()


def test_panel_in_chinese(qtbot: QtBot, data_dir: Path) -> None:
    win = open_window(qtbot, data_dir, "zh")
    try:
        with backend_client(win) as client:
            client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="公司制度"))
        menu = win.menuBar().actions()[0].menu()
        assert isinstance(menu, QtWidgets.QMenu)
        (action,) = [a for a in menu.actions() if a.text() == "外部 AI 工具（MCP）(&E)…"]
        action.trigger()
        dialog = win.external_tools
        assert dialog is not None
        qtbot.waitUntil(lambda: dialog.libraries.count() == 1, timeout=5_000)
        assert dialog.windowTitle() == "外部 AI 工具（MCP）"
        # the call record arrives on its own answer, after the library list
        qtbot.waitUntil(lambda: "还没有外部工具调用过" in dialog.calls_note.text(), timeout=5_000)
        # on an 800×600 screen the dialog fits it: the sections scroll, Close stays in view
        dialog.resize(800, 600)
        qtbot.waitUntil(lambda: dialog.height() <= 600, timeout=2_000)
        close = next(b for b in dialog.findChildren(QtWidgets.QPushButton) if b.text() == "关闭")
        bottom = close.mapTo(dialog, close.rect().bottomLeft()).y()
        assert close.isVisible() and bottom <= dialog.height()
        shoot(dialog, "mcp-light-zh")
        dialog.accept()
    finally:
        win.link.shutdown()
        from goodbuddy_kb.ui.i18n import set_language

        set_language("en")
