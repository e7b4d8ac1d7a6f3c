"""The status bar's right-hand corner says what work goes on, in the real window over a real
backend and a slow loopback embedding service: while a library's vectors are built it names the
library, the task and its count, a notice in the bar never covers it, it reads in the language
chosen, and it goes once nothing is at work (the bar was blank for the 80 seconds a 1,500-file
library's vectors took after the sync's notice had timed out; a helper's try)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.ui.i18n import language, set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.tasks.activity import Activity
from tests.servers.embedserver import Script, openai_server
from tests.ui.helpers import graph_off, library_with_folder, shoot, use_embedding_service

pytestmark = [pytest.mark.gui, pytest.mark.integration]
#: Long enough to be cut at a fixed 380 pixels, and not at half the window (a helper saw
#: "Loadin…e embedding model" beside an empty bar).
NAME = "Quarterly engineering handbook and meeting notes"
TEXT = "Paragraph {n} of document {d} is about topic{d}x{n}. " * 40


def corner(win: MainWindow) -> Activity:
    found = win.statusBar().findChild(Activity)
    assert found is not None
    return found


def test_the_status_bar_says_what_work_goes_on_until_it_ends(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    script = Script()
    activity = corner(window)
    assert not activity.isVisible(), "nothing at work: no corner"
    with openai_server(script) as base:
        use_embedding_service(qtbot, window, base)
        script.delay_s = 1.0
        files = {
            f"doc{d}.md": "\n\n".join(TEXT.format(n=n, d=d) for n in range(8)) for d in range(1, 9)
        }
        library_with_folder(
            qtbot,
            window,
            tmp_path / "docs",
            files,
            name=NAME,
            vectors=False,
            before_import=lambda: graph_off(qtbot, window),
        )
        counted = re.compile(rf"^⟳ “{NAME}” · Vectorise · \d+/\d+ \(\d+%\)$")
        qtbot.waitUntil(
            lambda: activity.isVisible() and counted.match(activity.text()) is not None,
            timeout=20_000,
        )
        assert "Progress and cancel: the Tasks tab" in activity.toolTip()
        # a notice, however long, leaves the corner in view
        window.statusBar().showMessage("A notice " * 60, 8_000)
        qtbot.wait(100)
        assert activity.isVisible() and activity.text().startswith(f"⟳ “{NAME}”")
        shoot(window, "status-activity-en")
        window.language_actions["zh"].trigger()
        qtbot.waitUntil(lambda: language() == "zh", timeout=2_000)
        qtbot.waitUntil(lambda: activity.text().startswith(f"⟳ 「{NAME}」 · 向量化"), timeout=5_000)
        qtbot.waitUntil(lambda: window.current_library_id() is not None, timeout=5_000)
        shoot(window, "status-activity-zh")
        script.delay_s = 0.0
        qtbot.waitUntil(lambda: not activity.isVisible(), timeout=60_000)
        assert activity.text() == "" and activity.toolTip() == ""
    set_language("en")
