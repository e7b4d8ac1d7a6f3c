"""The sources pane shows its sources whole, in Chinese too: it was sized by the default row
height while the rows, in Chinese, are taller, and two sources scrolled (a helper's try)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.methods import SOURCE_ADD
from goodbuddy_kb.ui.documents.tables import fit_sources
from tests.ui.helpers import library_with_folder, open_window, shoot, wait_call

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_two_sources_show_whole_without_scrolling(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, lang: str
) -> None:
    win = open_window(qtbot, data_dir, lang)
    try:
        library_with_folder(
            qtbot, win, tmp_path / "a", {"a.md": "# A\n\n年假七天。\n"}, vectors=False
        )
        second = tmp_path / "b"
        second.mkdir()
        (second / "b.md").write_text("# B\n\n病假需要证明。\n", "utf-8")
        library_id = win.current_library_id()
        assert library_id is not None
        add = c.SourceAddRequest(library_id=library_id, kind="folder", location=str(second))
        wait_call(qtbot, win, SOURCE_ADD, add)
        tab = win.documents_tab
        qtbot.waitUntil(lambda: tab.sources.rowCount() == 2, timeout=10_000)
        qtbot.wait(200)
        view = tab.source_view
        assert view.verticalScrollBar().maximum() == 0, "both sources in view"
        # Rows as tall as a CJK font's lines make them under Xvfb (29 px where the default is
        # 21; the offscreen platform's fonts are smaller): the pane fits them too.
        for row in range(2):
            view.setRowHeight(row, view.verticalHeader().defaultSectionSize() + 10)
        fit_sources(view, tab.split)
        qtbot.wait(100)
        assert view.verticalScrollBar().maximum() == 0, "both taller sources in view"
        shoot(win, f"two-sources-{lang}")
    finally:
        win.link.shutdown()
