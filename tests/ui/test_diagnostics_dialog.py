"""Settings → Diagnostics in the real window over a real backend: totals after real work, the
recent events, and Export… writing the redacted bundle (screenshots in zh and en); every event
kind has a name in both languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts.methods import LIBRARY_REBUILD
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.settings.diagnostics import DiagnosticsDialog
from tests.ui.helpers import (
    MakeLibrary,
    ask,
    handbook,
    idle,
    latin_words,
    open_window,
    shoot,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_diagnostics_view_shows_totals_and_exports(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, language: str, make_library: MakeLibrary
) -> None:
    win: MainWindow = open_window(qtbot, data_dir, language)
    try:
        make_library(handbook(), win=win)
        library_id = win.current_library_id()
        assert library_id is not None
        wait_call(qtbot, win, LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id))
        idle(qtbot, win)
        ask(qtbot, win, "annual leave")
        assert win.workbench is not None
        win.workbench.close()
        win.open_diagnostics()
        dialog = win.diagnostics
        assert isinstance(dialog, DiagnosticsDialog)
        qtbot.waitUntil(lambda: dialog.totals.rowCount() >= 2, timeout=10_000)
        kinds = {dialog.totals.item(r, 0).text() for r in range(dialog.totals.rowCount())}
        assert ("Retrieval" if language == "en" else "检索") in kinds
        assert ("Rebuild" if language == "en" else "重建") in kinds
        # every kind's row in sight (a third of the height hid the fourth behind a scroll bar)
        totals = dialog.totals
        assert totals.verticalScrollBar().maximum() == 0
        for row in range(totals.rowCount()):
            rect = totals.visualRect(totals.model().index(row, 0))
            assert rect.bottom() <= totals.viewport().height(), (row, rect, totals.height())
        assert dialog.recent.rowCount() >= 3
        summaries = [dialog.recent.item(r, 4).text() for r in range(dialog.recent.rowCount())]
        where = (
            "workbench or command line · libraries: 1 · "
            if language == "en"
            else "检索工作台或命令行 · 知识库 1 个 · "
        )
        assert any(text.startswith(where) for text in summaries), summaries
        qtbot.wait(800)
        shoot(dialog, f"diagnostics-{language}")
        target = tmp_path / "bundle.json"
        with qtbot.waitSignal(dialog.exported, timeout=10_000) as exported:
            dialog.export_to(str(target))
        assert exported.args == [str(target)]
        bundle = json.loads(target.read_text(encoding="utf-8"))
        assert "annual leave" not in target.read_text(encoding="utf-8")
        assert any(e["kind"] == "retrieve" for e in bundle["diagnostics"]["events"])
        assert str(target) in dialog.status.text()
        # it says what the file holds as well as what it leaves out
        holds = "each library's settings" if language == "en" else "各知识库的设置"
        assert holds in dialog.status.text()
        shoot(dialog, f"diagnostics-exported-{language}")
    finally:
        win.link.shutdown()


def test_every_diagnostics_event_kind_has_a_name_in_both_languages() -> None:
    from goodbuddy_kb.ui.i18n import STRINGS
    from goodbuddy_kb.ui.settings.diagnostics import KINDS, _kind

    assert {"graph", "ocr"} <= set(KINDS), "every task kind the backend records"
    for kind in KINDS:
        zh, en = STRINGS[f"diagrec.kind.{kind}"]
        assert zh and en and not latin_words(zh.replace("OCR", "")), kind
    set_language("zh")
    try:
        assert _kind("graph") == "图谱抽取"
    finally:
        set_language("en")
