"""The Tasks tab at 800×600, in the real window over a real backend: its cells elide, so the
followed task's summary and failure reason are shown whole, wrapped, under the table; the
created column is short enough to read (month, day and time; the whole stamp in its tooltip)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.tasks.progress import summary
from goodbuddy_kb.ui.tasks.tab import TASK_COLUMNS
from tests.ui.helpers import library_with_folder, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]

FILES: dict[str, str | bytes] = {
    "travel.md": "# Travel\n\nHotel rooms in tier-1 cities are paid up to 600 a night.\n",
    "leave.md": "# Leave\n\nAnnual leave carries over until the end of March.\n",
    "empty.md": b"",
}


def test_a_narrow_tasks_tab_shows_the_followed_tasks_summary_whole(
    qtbot: QtBot, tmp_path: Path
) -> None:
    win = open_window(qtbot, tmp_path / "data", "en")
    win.resize(800, 600)
    library_with_folder(qtbot, win, tmp_path / "docs", FILES, vectors=False)
    tab = win.tasks_tab
    win.tabs.setCurrentWidget(tab)
    qtbot.waitUntil(
        lambda: any(r.kind == "sync" and r.state == "completed" for r in tab.model.rows),
        timeout=20_000,
    )
    row = next(i for i, r in enumerate(tab.model.rows) if r.kind == "sync")
    tab.view.selectRow(row)
    info = tab.model.rows[row]
    written = summary(info)
    assert "1 failed" in written, written
    # the whole summary under the table (its cell elides when the window is narrow)
    qtbot.waitUntil(lambda: written in tab.details.text(), timeout=5_000)
    assert tab.details.isVisible() and tab.details.wordWrap()
    bottom = tab.details.mapTo(win, QtCore.QPoint(0, tab.details.height())).y()
    assert bottom <= win.height()
    created = next(i for i, c in enumerate(TASK_COLUMNS) if c.header_key == "col.created")
    cell = tab.model.index(row, created)
    assert re.fullmatch(r"\d\d-\d\d \d\d:\d\d", cell.data())
    assert info.created_at[:19].replace("T", " ") == cell.data(QtCore.Qt.ItemDataRole.ToolTipRole)
    # and the table itself never scrolls sideways: its cells elide instead
    qtbot.waitUntil(lambda: tab.view.horizontalScrollBar().maximum() == 0, timeout=5_000)
    shoot(win, "tasks-narrow-en")
