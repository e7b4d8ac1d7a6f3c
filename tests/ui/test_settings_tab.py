"""The settings tab: the library's retrieval and chunking settings validated inline, a weight no
channel can use refused, and a chunking change marking the documents for rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.ui.mainwindow.window import MainWindow

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.mark.usefixtures("library")
def test_settings_form_validates_inline_and_marks_rebuild(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.settings_tab
    window.tabs.setCurrentWidget(tab)
    for name in ("ftsWeight", "vectorWeight", "graphWeight"):
        tab.fields[name].setValue(0)  # type: ignore[attr-defined]
    tab.save_retrieval_settings()
    assert (
        tab.retrieval_error.isVisible()
        and "at least one channel weight" in tab.retrieval_error.text()
    )
    tab.mode_box.setCurrentIndex(tab.mode_box.findData("parent-child"))
    tab.save_chunking_settings()
    qtbot.waitUntil(tab.rebuild_notice.isVisible, timeout=5_000)
    qtbot.waitUntil(lambda: not window.documents_tab.pending_label.isHidden(), timeout=5_000)


@pytest.mark.usefixtures("library")
def test_settings_refuse_weights_no_channel_can_use_inline(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.settings_tab
    window.tabs.setCurrentWidget(tab)
    assert "range 1–20" in tab.fields["topK"].accessibleDescription()
    tab.fields["ftsWeight"].setValue(0)  # type: ignore[attr-defined]
    tab.fields["vectorWeight"].setValue(0)  # type: ignore[attr-defined]
    assert tab.fields["graphWeight"].value() > 0  # type: ignore[attr-defined]
    tab.save_retrieval_settings()
    qtbot.waitUntil(tab.errors["ftsWeight"].isVisible, timeout=5_000)
    assert "no channel that can run" in tab.errors["ftsWeight"].text()
    assert tab.errors["vectorWeight"].isVisible()
