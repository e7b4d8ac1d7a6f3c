"""A scanned image end to end in the real window over a real backend process: it is imported,
recognised by the OCR stage, and its chunk view names the page, says the text came from OCR and
marks the low-confidence line (shaded, wavy underline, listed in words); the clear lines are
not marked. Saves screenshots (en, zh) to artifacts/.

The backend marks lines below 0.985 here (``GOODBUDDY_OCR_LOW_CONFIDENCE``): the generated
smudged line is recognised at about 0.97 and clean print at 0.996 or more, so exactly the
smudged line is low-confidence without depending on what a worse scan would score."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.qt.widgets import QtCore, QtGui
from goodbuddy_kb.ui.chunks.model import CHUNK_COLUMNS
from goodbuddy_kb.ui.documents.tab import DOCUMENT_COLUMNS
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.ocrgen import cjk_font, png_with_smudged_line
from tests.ui.helpers import library_with_folder, open_from_row, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration, pytest.mark.slow]
Key = QtCore.Qt.Key

CLEAR = ["Signed notice: the contract starts in May.", "合同自五月起生效。"]
SMUDGED = "Stamp 4471 盖章处字迹"


def import_scan(qtbot: QtBot, win: MainWindow, tmp_path: Path) -> None:
    scan = png_with_smudged_line(CLEAR, SMUDGED)
    files = {"notice.png": scan}
    library_with_folder(qtbot, win, tmp_path / "scans", files, name="Scans", vectors=False)
    tab = win.documents_tab
    qtbot.waitUntil(lambda: tab.documents.rowCount() == 1, timeout=20_000)
    qtbot.waitUntil(
        lambda: (
            tab.documents.rows[0].ocr is not None and tab.documents.rows[0].ocr.status == "done"
        ),
        timeout=240_000,  # a page takes seconds, more on a busy machine
    )


@pytest.mark.skipif(cjk_font() is None, reason="no CJK font to render the scan")
def test_the_chunk_view_marks_low_confidence_ocr_lines(
    qtbot: QtBot, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOODBUDDY_OCR_LOW_CONFIDENCE", "0.985")
    win = open_window(qtbot, data_dir, "en")
    try:
        import_scan(qtbot, win, tmp_path)
        tab = win.documents_tab
        row = tab.documents.rows[0]
        assert row.ocr is not None and row.ocr.low_confidence_lines == 1
        column = [c.header_key for c in DOCUMENT_COLUMNS].index("col.ocr")
        assert tab.documents.data(tab.documents.index(0, column)).endswith("⚠1")
        dialog = open_from_row(qtbot, win, "notice.png")
        locator = [c.header_key for c in CHUNK_COLUMNS].index("chunks.col.locator")
        assert dialog.model.data(dialog.model.index(0, locator)) == "p. 1 · OCR ⚠1"
        content = dialog.pane.editor.toPlainText()
        assert "Signed notice" in content and "4471" in content
        assert dialog.pane.ocr_label.isVisible() and "came from OCR" in dialog.pane.ocr_label.text()
        assert (
            dialog.pane.low_label.isVisible()
            and "1 low-confidence line" in dialog.pane.low_label.text()
        )
        marked = dialog.pane.marked_text()
        assert len(marked) == 1 and "4471" in marked[0] and "Signed" not in marked[0]
        assert marked[0] in dialog.pane.low_label.text()  # the words name what the shade marks
        selections = dialog.pane.editor.extraSelections()
        wave = QtGui.QTextCharFormat.UnderlineStyle.WaveUnderline
        assert [s.format.underlineStyle() for s in selections] == [wave]
        shoot(dialog, "ocr-chunk-view-en")
        dialog.reject()
        qtbot.waitUntil(lambda: tab.chunks_dialog is None, timeout=5_000)
        set_language("zh")
        dialog = open_from_row(qtbot, win, "notice.png")
        assert "第 1 页" in dialog.model.data(dialog.model.index(0, locator))
        assert "低" in dialog.pane.low_label.text() and len(dialog.pane.marked_text()) == 1
        shoot(dialog, "ocr-chunk-view-zh")
        dialog.reject()
    finally:
        win.link.shutdown()
        set_language("en")
