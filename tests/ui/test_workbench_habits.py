"""The workbench's habits in the real window over a real backend: Enter searches and
Shift+Enter adds a line (the placeholder says so); the effective-settings line names every
setting and what the last search scanned; a library whose graph is off hears that as
information, not a warning, on every search; the headers read whole at the default size; and
the question, top K, rerank and splitter come back after switching library and back; a choice
made before the library's settings arrive is kept; the workbench stays open beside the window
(not modal), one per library, and follows a language switch."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.i18n import language, set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.table_model import HEADER_PADDING
from goodbuddy_kb.ui.workbench.results import RESULT_COLUMNS
from goodbuddy_kb.ui.workbench.view import WorkbenchDialog
from tests.ui.helpers import create_library, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Key, Mod = QtCore.Qt.Key, QtCore.Qt.KeyboardModifier


def select(qtbot: QtBot, win: MainWindow, name: str) -> None:
    row = next(
        i
        for i in range(win.model.rowCount())
        if (library := win.model.library_at(i)) is not None and library.name == name
    )
    win.libraries.list_view.setCurrentIndex(win.model.index(row))
    qtbot.waitUntil(
        lambda: (x := win.current_library()) is not None and x.name == name, timeout=5_000
    )


def open_bench(qtbot: QtBot, win: MainWindow) -> WorkbenchDialog:
    qtbot.mouseClick(win.workbench_button, QtCore.Qt.MouseButton.LeftButton)
    bench = win.workbench
    assert bench is not None
    qtbot.waitUntil(bench.isVisible)
    qtbot.waitUntil(lambda: bench.library_settings is not None, timeout=5_000)
    return bench


def search_with_enter(qtbot: QtBot, bench: WorkbenchDialog) -> None:
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        qtbot.keyClick(bench.query, Key.Key_Return)


@pytest.mark.usefixtures("library")
def test_enter_searches_and_shift_enter_adds_a_line(qtbot: QtBot, window: MainWindow) -> None:
    bench = open_bench(qtbot, window)
    assert "Enter searches, Shift+Enter adds a line" in bench.query.placeholderText()
    qtbot.keyClicks(bench.query, "travel")
    qtbot.keyClick(bench.query, Key.Key_Return, Mod.ShiftModifier)
    assert bench.response is None and bench.request_id is None, "Shift+Enter does not search"
    qtbot.keyClicks(bench.query, "allowance")
    assert bench.query.toPlainText() == "travel\nallowance"
    search_with_enter(qtbot, bench)
    assert bench.response is not None and bench.results.rowCount() >= 1
    bench.reject()


def search_with_button(qtbot: QtBot, bench: WorkbenchDialog) -> None:
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        qtbot.mouseClick(bench.run_button, QtCore.Qt.MouseButton.LeftButton)


@pytest.mark.usefixtures("library")
def test_the_line_says_every_setting_and_what_the_search_scanned(
    qtbot: QtBot, window: MainWindow
) -> None:
    bench = open_bench(qtbot, window)
    bench.query.setPlainText("travel allowance")
    for _search in range(2):  # on every search: a question naming no entity is information
        search_with_button(qtbot, bench)
        answer = bench.response
        assert answer is not None
        codes = [x.reason_code for x in answer.diagnostics.degraded_channels]
        assert "graph.no_entities" in codes
        assert "graph" not in answer.diagnostics.used_channels
        status = bench.status.text()
        assert "ⓘ Graph: no entity of the graph was found in the question" in status
        assert "⚠" not in status
        assert "Not used: graph — " in bench.diagnostics.toPlainText()
    effective = bench.effective.text()
    for setting in (
        "graph weight 0.8",
        "candidate multiplier 4",
        "minimum relevance 0.2",
        "minimum vector similarity 0",
    ):
        assert setting in effective
    d = answer.diagnostics
    assert d.vector_scanned > 0
    assert f"{d.vector_scanned} vectors scanned" in effective
    assert f"vector search {d.timings_ms['vector']:.1f} ms" in effective
    assert f"{d.filtered_by_similarity} filtered by the minimum vector similarity" in effective
    shoot(bench, "workbench-habits-en")
    bench.reject()


@pytest.mark.usefixtures("library")
def test_the_result_headers_read_whole_at_the_default_size(
    qtbot: QtBot, window: MainWindow
) -> None:
    bench = open_bench(qtbot, window)
    bench.query.setPlainText("travel allowance")
    search_with_button(qtbot, bench)
    qtbot.wait(50)
    header = bench.table.horizontalHeader()
    font = header.font()
    font.setBold(True)
    metrics = QtGui.QFontMetrics(font)
    for column, spec in enumerate(RESULT_COLUMNS[:-1]):  # (the snippet takes what is left)
        if bench.table.isColumnHidden(column):
            continue  # (the rank before reranking, with rerank off)
        title = str(bench.results.headerData(column, QtCore.Qt.Orientation.Horizontal))
        assert header.sectionSize(column) >= metrics.horizontalAdvance(title) + HEADER_PADDING, (
            spec.header_key  # no "Documen", no "Pre-reranl"
        )
    assert not bench.table.horizontalScrollBar().isVisible()
    bench.reject()


@pytest.mark.usefixtures("library")
def test_the_workbench_remembers_each_library_for_the_session(
    qtbot: QtBot, window: MainWindow
) -> None:
    bench = open_bench(qtbot, window)
    qtbot.keyClicks(bench.query, "travel allowance")
    bench.top_k.setValue(9)
    bench.rerank.setCurrentIndex(bench.rerank.findData("local"))
    bench.resize(740, 720)  # within the test screen (800×800): a dialog keeps within its screen
    qtbot.wait(50)
    bench.splitter.setSizes([400, 676])
    bench.move(37, 41)  # moved aside, as a person drags it beside the main window
    qtbot.wait(50)
    sizes = bench.splitter.sizes()
    bench.reject()
    create_library(qtbot, window, "Other")
    other = open_bench(qtbot, window)
    assert other.query.toPlainText() == "" and other.top_k.value() == 6
    assert other.rerank.currentData() == "off"
    other.reject()
    select(qtbot, window, "Handbook")
    again = open_bench(qtbot, window)
    qtbot.wait(50)
    assert again is not bench
    assert again.query.toPlainText() == "travel allowance"
    assert again.top_k.value() == 9 and again.rerank.currentData() == "local"
    assert (again.width(), again.height()) == (740, 720)
    assert (again.pos().x(), again.pos().y()) == (37, 41), "it opens where it was moved"
    assert again.splitter.sizes() == sizes
    assert "top K 9" in again.effective.text()
    # the kept question is selected: typing asks anew (it was appended to the old question)
    again.query.setFocus()
    qtbot.keyClicks(again.query, "reimbursement")
    assert again.query.toPlainText() == "reimbursement"
    again.reject()
    # and after a first click into it (the click put the cursor at the end and typing
    # appended: "Who must approve…?婚假有几天？"; a helper's try); a second click places the
    # cursor as usual
    third = open_bench(qtbot, window)
    viewport = third.query.viewport()
    qtbot.mouseClick(viewport, QtCore.Qt.MouseButton.LeftButton, pos=viewport.rect().center())
    qtbot.wait(20)  # (a person's hand moves from the mouse to the keys)
    qtbot.keyClicks(third.query, "per diem")
    assert third.query.toPlainText() == "per diem"
    qtbot.mouseClick(viewport, QtCore.Qt.MouseButton.LeftButton, pos=viewport.rect().center())
    qtbot.wait(20)
    qtbot.keyClicks(third.query, "s")
    assert third.query.toPlainText() == "per diems"
    third.reject()


@pytest.mark.usefixtures("library")
def test_a_choice_made_before_the_library_settings_arrive_is_kept(
    qtbot: QtBot, window: MainWindow
) -> None:
    """The person changes top K and the rerank while the library's settings are on their way
    (before the reply is read): the reply fills in only what the person left alone."""
    qtbot.mouseClick(window.workbench_button, QtCore.Qt.MouseButton.LeftButton)
    bench = window.workbench
    assert bench is not None and bench.library_settings is None
    bench.top_k.setValue(9)
    bench.rerank.setCurrentIndex(bench.rerank.findData("local"))
    qtbot.waitUntil(lambda: bench.library_settings is not None, timeout=5_000)
    assert bench.top_k.value() == 9 and bench.rerank.currentData() == "local"
    assert bench.fusion.currentData() == bench.library_settings.fusion
    assert "top K 9" in bench.effective.text()
    bench.reject()


@pytest.mark.usefixtures("library")
def test_the_workbench_stays_open_beside_the_window(qtbot: QtBot, window: MainWindow) -> None:
    """The workbench is not modal: with it open the person moves through the window's tabs and
    libraries; its button brings the open one forward instead of a second; another library
    gets its own, and a deleted library's closes."""
    bench = open_bench(qtbot, window)
    assert not bench.isModal() and QtWidgets.QApplication.activeModalWidget() is None
    # a window of its own: not held above the main window by the window manager (a dialog's
    # type made it so, over the window's menus, and minimised the two together)
    assert bench.windowType() == QtCore.Qt.WindowType.Window
    assert bench.windowFlags() & QtCore.Qt.WindowType.WindowMinimizeButtonHint
    chunks_tab = window.tabs.currentIndex()
    other_tab = (chunks_tab + 1) % window.tabs.count()
    bar = window.tabs.tabBar()
    qtbot.mouseClick(bar, QtCore.Qt.MouseButton.LeftButton, pos=bar.tabRect(other_tab).center())
    assert window.tabs.currentIndex() == other_tab and bench.isVisible()
    qtbot.keyClicks(bench.query, "travel")
    qtbot.mouseClick(window.workbench_button, QtCore.Qt.MouseButton.LeftButton)
    assert window.workbench is bench and bench.query.toPlainText() == "travel"
    create_library(qtbot, window, "Other")
    other = open_bench(qtbot, window)
    assert other is not bench and other.library_id != bench.library_id
    assert bench.isVisible() and other.isVisible()
    gone = other.library_id
    with qtbot.waitSignal(other.finished, timeout=5_000):  # it closes (and is let go)
        window.delete_library()
        box = window.delete_box
        assert box is not None
        box.property("deleteButton").click()
    assert gone not in window.workbenches and list(window.workbenches) == [bench.library_id]
    assert bench.isVisible(), "the other library's workbench stays"
    search_with_enter(qtbot, bench)
    assert bench.response is not None and bench.results.rowCount() >= 1
    bench.reject()


@pytest.mark.usefixtures("library")
def test_an_open_workbench_follows_a_language_switch(qtbot: QtBot, window: MainWindow) -> None:
    """Open beside the window, a workbench that answered is open again in the new language with
    its question, answered again (the switch drops the window's pending answers)."""
    bench = open_bench(qtbot, window)
    qtbot.keyClicks(bench.query, "travel allowance")
    search_with_enter(qtbot, bench)
    try:
        window.language_actions["zh"].trigger()
        qtbot.waitUntil(lambda: language() == "zh", timeout=5_000)
        again = window.workbench
        assert again is not None and again is not bench and again.isVisible()
        assert again.windowTitle().startswith("测试检索") and again.run_button.text() == "检索"
        assert again.query.toPlainText() == "travel allowance"
        qtbot.waitUntil(lambda: again.response is not None, timeout=20_000)
        assert again.results.rowCount() >= 1
        again.reject()
    finally:
        set_language("en")


@pytest.mark.usefixtures("library")
def test_a_rerank_that_fell_back_says_so_beside_the_results(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Tried under Xvfb: "Learned model" asked for with no rerank service configured used the
    local rules; only the Diagnostics tab said so, while the settings line named the learned
    model."""
    bench = open_bench(qtbot, window)
    bench.rerank.setCurrentIndex(bench.rerank.findData("learned"))
    qtbot.keyClicks(bench.query, "travel allowance")
    search_with_enter(qtbot, bench)
    assert bench.response is not None and bench.response.diagnostics.rerank.applied == "local"
    line = bench.status.text()
    assert "⚠ Rerank: Learned model was asked for, Local rules used (" in line, line
    bench.reject()
