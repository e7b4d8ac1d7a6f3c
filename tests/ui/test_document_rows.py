"""Document rows at 800×600 and their context menu, against the real GUI over a real backend:
a failed document's whole reason reads without sideways scrolling (an elided column with the
whole reason as its tooltip, and the selected document's line under the table), its actions stay
reachable, and "Open source" opens the document's file — a failed document's too — through the
backend (its opener replaced at the process boundary by a command that records what it was
given); rows have a context menu and open their chunks on a double click."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.documents.bar import REASON_MIN_WIDTH
from goodbuddy_kb.ui.documents.columns import CHUNKS_COLUMN, GRAPH_COLUMN
from goodbuddy_kb.ui.documents.tab import DOCUMENT_COLUMNS
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.ui.helpers import create_library_with_folder, library_with_folder, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]
REASON = len(DOCUMENT_COLUMNS) - 1


def window_with_failures(qtbot: QtBot, data_dir: Path, tmp_path: Path, language: str) -> MainWindow:
    win = open_window(qtbot, data_dir, language)
    create_library_with_folder(qtbot, win, tmp_path)
    (tmp_path / "docs" / "empty.md").write_bytes(b"")
    (tmp_path / "docs" / "blob.txt").write_bytes(bytes(range(256)) * 8)
    tab = win.documents_tab
    tab.source_actions.sync_now()
    # Sync now says that it started (it said nothing, or an older message stayed)
    started = "已开始同步 1 个来源" if language == "zh" else "Sync of 1 source started"
    qtbot.waitUntil(lambda: started in win.statusBar().currentMessage(), timeout=5_000)
    qtbot.waitUntil(lambda: sum(1 for d in tab.documents.rows if d.error) == 2, timeout=20_000)
    # ... and then how it ended, not "started" long after the end
    ended = "同步 · ✓" if language == "zh" else "Sync · ✓"
    qtbot.waitUntil(lambda: ended in win.statusBar().currentMessage(), timeout=20_000)
    return win


def row_of(win: MainWindow, path: str) -> int:
    return next(i for i, d in enumerate(win.documents_tab.documents.rows) if d.path == path)


@pytest.fixture
def narrow(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, qapp: QtWidgets.QApplication
) -> Iterator[MainWindow]:
    apply_theme(qapp, dark=False)  # as the application starts: the theme's cell padding
    win = window_with_failures(qtbot, data_dir, tmp_path, "en")
    yield win
    win.link.shutdown()
    set_language("en")


def test_a_failed_reason_reads_at_800x600_with_its_actions_reachable(
    qtbot: QtBot, narrow: MainWindow
) -> None:
    win, tab = narrow, narrow.documents_tab
    view = tab.document_view
    wide_reason = view.columnWidth(REASON)
    assert not view.isColumnHidden(CHUNKS_COLUMN), "room for the chunk count in a wide window"
    win.resize(800, 600)
    qtbot.waitUntil(lambda: view.columnWidth(REASON) >= REASON_MIN_WIDTH, timeout=5_000)
    qtbot.wait(100)
    assert wide_reason > 0
    row = row_of(win, "blob.txt")
    doc = tab.documents.rows[row]
    assert doc.error and doc.error_code == "parse.binary"
    # nothing was read, so nothing to vectorise or extract: "– None", not "– Off"
    vector = next(i for i, col in enumerate(DOCUMENT_COLUMNS) if col.header_key == "col.vector")
    for column in (vector, GRAPH_COLUMN):
        assert tab.documents.data(tab.documents.index(row, column)) == "– None"
    # The reason column is on screen, at least REASON_MIN_WIDTH wide, with no sideways scroll.
    right = view.columnViewportPosition(REASON) + view.columnWidth(REASON)
    assert right <= view.viewport().width() + 1
    assert not view.horizontalScrollBar().isVisible()
    index = tab.documents.index(row, REASON)
    assert tab.documents.data(index) == "binary content, not text"
    assert tab.documents.data(index, QtCore.Qt.ItemDataRole.ToolTipRole) == doc.error
    # The selected document's line says the whole reason; its actions are beside it.
    view.setFocus()
    view.selectRow(row)
    assert "binary content, not text" in tab.document_bar.reason.text()
    # At 800 px, with the graph column shown (a new library's graph is local), the chunk count
    # gives the reason its room; the selected document's line says it instead.
    assert not view.isColumnHidden(GRAPH_COLUMN) and view.isColumnHidden(CHUNKS_COLUMN)
    assert "blob.txt</b> · 0 chunks — ⚠" in tab.document_bar.reason.text()
    assert tab.document_bar.reason.isVisible()
    failed = tab.failed_file
    for button in (tab.rebuild_doc_button, tab.open_source_button, *failed.buttons):
        assert button.isVisible(), button.text()
    assert not tab.view_chunks_button.isVisible(), "nothing was read: no chunks to view"
    assert tab.rebuild_doc_button.isEnabled() and tab.rebuild_doc_button.text() == (
        "Rebuild document"
    ), "no retry offered for a file that cannot be read"
    assert tab.open_source_button.isEnabled(), "a failed file is the one to look at"
    labels = [a.text() for a in view.actions()]
    assert labels[:4] == ["View chunks", "Rebuild document", "Open source", "Copy path"]
    # The table still shows at least eight rows.
    assert view.viewport().height() >= 8 * view.rowHeight(0)
    shoot(win, "documents-failed-reason-800x600-en")


def test_the_reason_line_reads_in_chinese(qtbot: QtBot, data_dir: Path, tmp_path: Path) -> None:
    win = window_with_failures(qtbot, data_dir, tmp_path, "zh")
    try:
        tab = win.documents_tab
        view = tab.document_view
        win.resize(1200, 800)
        qtbot.waitUntil(lambda: not view.isColumnHidden(CHUNKS_COLUMN), timeout=5_000)
        # narrowed while another tab shows: the table fits again when it shows, and stays so
        win.tabs.setCurrentWidget(win.graph_tab)
        win.resize(800, 600)
        qtbot.wait(200)
        win.tabs.setCurrentWidget(tab)
        qtbot.waitUntil(lambda: view.columnWidth(REASON) >= REASON_MIN_WIDTH, timeout=5_000)
        widths = [view.columnWidth(i) for i in range(len(DOCUMENT_COLUMNS))]
        qtbot.wait(300)
        assert [view.columnWidth(i) for i in range(len(DOCUMENT_COLUMNS))] == widths
        # the chunk count shows only where it fits beside the reason's least width
        assert not view.horizontalScrollBar().isVisible()
        assert view.columnWidth(REASON) >= REASON_MIN_WIDTH
        tab.document_view.selectRow(row_of(win, "empty.md"))
        assert "空文件" in tab.document_bar.reason.text()
        assert tab.open_source_button.text() == "打开来源"
        shoot(win, "documents-failed-reason-800x600-zh")
    finally:
        win.link.shutdown()
        set_language("en")


def test_open_source_from_the_row_menu_opens_the_documents_file(
    qtbot: QtBot, opened_log: Path, data_dir: Path, tmp_path: Path
) -> None:
    win = window_with_failures(qtbot, data_dir, tmp_path, "en")
    try:
        tab = win.documents_tab
        view = tab.document_view
        messages: list[str] = []
        tab.notice.connect(messages.append)
        view.selectRow(row_of(win, "manual_en.md"))
        assert tab.open_source_button.isEnabled()
        tab.row_actions.open_action.trigger()
        qtbot.waitUntil(opened_log.exists, timeout=10_000)
        qtbot.waitUntil(lambda: bool(opened_log.read_text().strip()), timeout=5_000)
        assert opened_log.read_text().splitlines() == [str(tmp_path / "docs" / "manual_en.md")]
        qtbot.waitUntil(lambda: any("Opened the source" in m for m in messages), timeout=5_000)
        # A failed document (nothing indexed) opens too: its file is what needs looking at.
        view.selectRow(row_of(win, "empty.md"))
        assert tab.open_source_button.isEnabled()
        qtbot.mouseClick(tab.open_source_button, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(opened_log.read_text().splitlines()) == 2, timeout=10_000)
        assert opened_log.read_text().splitlines()[1] == str(tmp_path / "docs" / "empty.md")
    finally:
        win.link.shutdown()
        set_language("en")


@pytest.mark.usefixtures("library")
def test_document_rows_have_a_context_menu_and_a_double_click(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.documents_tab
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


def test_the_graph_column_says_how_many_entities_a_document_gave(
    qtbot: QtBot, data_dir: Path, tmp_path: Path
) -> None:
    """ "✓ Done" read the same for a document the extraction found nothing in: the column says
    how many entities it found, and its tooltip the relations too."""
    win = open_window(qtbot, data_dir, "en")
    try:
        create_library_with_folder(qtbot, win, tmp_path)
        (tmp_path / "docs" / "plain.txt").write_text("it was a quiet day and nothing more.\n")
        tab = win.documents_tab
        tab.source_actions.sync_now()
        rows = tab.documents

        def graphed() -> bool:
            return len(rows.rows) == 3 and all(d.status.graph == "done" for d in rows.rows)

        qtbot.waitUntil(graphed, timeout=60_000)
        plain = row_of(win, "plain.txt")
        assert rows.data(rows.index(plain, GRAPH_COLUMN)) == "✓ 0 found"
        tip = rows.data(rows.index(plain, GRAPH_COLUMN), QtCore.Qt.ItemDataRole.ToolTipRole)
        assert tip == "Graph extraction done: 0 entities and 0 relations found in this document."
        found = [d for d in rows.rows if d.graph_entities > 0]
        assert found, "the handbook names people and systems"
        for doc in found:
            row = row_of(win, doc.path)
            text = rows.data(rows.index(row, GRAPH_COLUMN))
            assert text == f"✓ {doc.graph_entities} found"
    finally:
        win.link.shutdown()


def test_names_take_the_room_an_empty_reason_column_would_at_800x600(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, qapp: QtWidgets.QApplication
) -> None:
    """No document on the page has a reason: the reason column keeps only its title's width and
    the names read whole (they were elided, "coventry-…ook.md", beside 190 blank pixels)."""
    apply_theme(qapp, dark=False)
    win = open_window(qtbot, data_dir, "en")
    try:
        files = {
            "coventry-office-handbook.md": b"# Coventry office\n\nThe office opens at nine.\n",
            "engineering-tools.md": b"# Engineering tools\n\nBuilds run on the CI server.\n",
        }
        library_with_folder(qtbot, win, tmp_path / "docs", files)
        view = win.documents_tab.document_view
        win.resize(800, 600)
        qtbot.waitUntil(lambda: view.viewport().width() < 600, timeout=5_000)
        qtbot.wait(200)  # the columns are fitted a moment after the resize
        assert view.columnWidth(0) >= view.sizeHintForColumn(0), "the names read whole"
        assert not any(d.error or d.note for d in win.documents_tab.documents.rows)
        assert not view.isColumnHidden(GRAPH_COLUMN)
        right = view.columnViewportPosition(REASON) + view.columnWidth(REASON)
        assert right <= view.viewport().width() + 1
        assert not view.horizontalScrollBar().isVisible()
        shoot(win, "documents-names-800x600-en")
    finally:
        win.link.shutdown()
