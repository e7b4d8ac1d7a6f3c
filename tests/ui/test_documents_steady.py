"""The documents tab in the real window over a real backend: a steady table (the same columns
whatever the timing and the scrolling, no per-row buttons, names read whole), one "Rebuild
library" button on a screen while settings wait for a rebuild, and a file that cannot be read
offering what can help — its reason, its folder (the file manager replaced at the process
boundary by a command that records what it shows), removal — instead of "Rebuild (retry)"."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.methods import SETTINGS_UPDATE
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.main_process.opener import ENV_REVEALER
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.locator import path_text
from tests.ui.helpers import MakeLibrary, handbook, shoot, wait_call

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Click = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def revealed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file manager: a command that records the file it was asked to show."""
    log = tmp_path / "revealed.log"
    script = tmp_path / "record-revealer"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(sys.argv[1] + '\\n')\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv(ENV_REVEALER, str(script))
    return log


def visible_titles(win: MainWindow) -> list[str]:
    view = win.documents_tab.document_view
    model = view.model()
    return [
        str(model.headerData(c, QtCore.Qt.Orientation.Horizontal))
        for c in range(model.columnCount())
        if not view.isColumnHidden(c)
    ]


def no_cell_widgets(win: MainWindow) -> bool:
    view = win.documents_tab.document_view
    model = view.model()
    return all(
        view.indexWidget(model.index(r, c)) is None
        for r in range(model.rowCount())
        for c in range(model.columnCount())
    )


def select(win: MainWindow, path: str) -> None:
    tab = win.documents_tab
    tab.document_view.selectRow(next(i for i, d in enumerate(tab.documents.rows) if d.path == path))


FAILING: dict[str, str | bytes] = {
    **handbook(),
    "empty.md": b"",
    "blob.txt": bytes(range(256)),
}


def test_a_steady_table(qtbot: QtBot, window: MainWindow, make_library: MakeLibrary) -> None:
    make_library(FAILING, vectors=False)
    tab = window.documents_tab
    qtbot.waitUntil(lambda: sum(1 for d in tab.documents.rows if d.error) == 2, timeout=20_000)
    before = visible_titles(window)
    assert "Action" not in before and no_cell_widgets(window), "no per-row buttons"
    tab.document_view.scrollToBottom()
    tab.refresh()
    qtbot.wait(300)
    assert visible_titles(window) == before and no_cell_widgets(window)
    view = tab.document_view
    names = [path_text(d.path) for d in tab.documents.rows]
    widest = max(view.fontMetrics().horizontalAdvance(n) for n in names)
    assert view.columnWidth(0) >= widest + 8, "names read whole at the default size"


def test_what_an_unreadable_file_offers(
    qtbot: QtBot, revealed: Path, window: MainWindow, make_library: MakeLibrary, tmp_path: Path
) -> None:
    """(``revealed`` comes first: the backend starts with the recording file manager.)"""
    folder = make_library(FAILING, vectors=False)
    tab = window.documents_tab
    qtbot.waitUntil(lambda: sum(1 for d in tab.documents.rows if d.error) == 2, timeout=20_000)
    select(window, "blob.txt")  # a binary file in the folder: a retry cannot help
    assert tab.rebuild_doc_button.text() == "Rebuild document"
    assert "retry" not in tab.rebuild_doc_button.text().lower()
    failed = tab.failed_file
    assert failed.reason_button.isVisible() and failed.folder_button.isVisible()
    assert failed.remove_button.isVisible() and failed.remove_button.text() == (
        "Remove from library…"
    )
    shoot(window, "documents-unreadable-file-en")
    qtbot.mouseClick(failed.reason_button, Click)
    box = tab.row_actions.details_box
    assert box is not None and box.isVisible() and "binary content, not text" in box.text()
    box.accept()
    qtbot.mouseClick(failed.folder_button, Click)
    qtbot.waitUntil(lambda: revealed.exists() and bool(revealed.read_text()), timeout=10_000)
    assert revealed.read_text().splitlines() == [str(folder / "blob.txt")]
    select(window, "manual_en.md")  # a readable document offers none of these
    assert not any(b.isVisible() for b in failed.buttons)

    # Removing the folder's file: it goes, and the folder's next sync leaves it out.
    select(window, "blob.txt")
    qtbot.mouseClick(failed.remove_button, Click)
    question = failed.remove_box
    assert question is not None and "leaves it out from now on" in question.text()
    question.property("confirmButton").click()
    qtbot.waitUntil(lambda: all(d.path != "blob.txt" for d in tab.documents.rows), timeout=10_000)
    # The sources list is its own request; its answer may come after the documents'.
    qtbot.waitUntil(lambda: tab.sources.rows[0].exclude == ["blob.txt"], timeout=10_000)
    synced = tab.sources.rows[0].last_synced_at
    tab.source_view.selectRow(0)
    tab.source_actions.sync_now()
    qtbot.waitUntil(lambda: tab.sources.rows[0].last_synced_at != synced, timeout=20_000)
    tab.refresh()
    qtbot.wait(300)
    assert all(d.path != "blob.txt" for d in tab.documents.rows)
    assert (folder / "blob.txt").exists(), "the file itself is left alone"

    lone = tmp_path / "lone.md"  # an empty file added on its own goes with its source
    lone.write_bytes(b"")
    tab.add_source("file", str(lone))
    qtbot.waitUntil(lambda: any(d.path == "lone.md" and d.error for d in tab.documents.rows))
    select(window, "lone.md")
    qtbot.mouseClick(failed.remove_button, Click)
    question = failed.remove_box
    assert question is not None and "Its source goes with it" in question.text()
    question.property("confirmButton").click()
    qtbot.waitUntil(lambda: all(d.path != "lone.md" for d in tab.documents.rows), timeout=10_000)
    qtbot.waitUntil(lambda: len(tab.sources.rows) == 1, timeout=5_000)
    assert lone.exists()


def rebuild_buttons(win: MainWindow) -> list[QtWidgets.QPushButton]:
    return [
        b
        for b in win.findChildren(QtWidgets.QPushButton)
        if b.text() == "Rebuild library" and b.isVisible()
    ]


def test_one_rebuild_library_button_while_settings_wait(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    make_library({"a.md": "# A\n\nAlpha text.\n"}, vectors=False)
    library_id = window.current_library_id()
    assert library_id is not None
    wait_call(
        qtbot,
        window,
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(
            library_id=library_id, chunking=KnowledgeChunkingSettings(mode="fixed")
        ),
    )
    tab = window.documents_tab
    qtbot.waitUntil(lambda: not tab.pending_label.isHidden(), timeout=5_000)
    qtbot.waitUntil(lambda: not window.detail.pending.isHidden(), timeout=5_000)
    assert rebuild_buttons(window) == [tab.rebuild_library_button]
    shoot(window, "documents-waiting-for-rebuild-en")
    window.tabs.setCurrentWidget(window.settings_tab)
    # the settings tab's notice comes with its settings (a clean-clone CI run read none after
    # 100 ms); then it is the one button, not a second beside the documents tab's
    qtbot.waitUntil(lambda: len(rebuild_buttons(window)) == 1, timeout=5_000)
    qtbot.wait(100)
    assert len(rebuild_buttons(window)) == 1
