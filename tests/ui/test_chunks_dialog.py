"""The chunk maintenance dialog end to end: a real GUI over a real backend process, driven by
the keyboard — open it from a document row, page, search, edit (a failed save keeps the draft),
switch a chunk off, delete one with a confirmation, Escape back to the row. Saves screenshots
(light/dark, zh/en, 800×600) to artifacts/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts.methods import CHUNK_DELETE, CHUNKS_LIST
from goodbuddy_kb.datadir import Endpoint
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.chunks.model import CHUNK_COLUMNS
from goodbuddy_kb.ui.documents.columns import chunk_count_text, chunk_count_tooltip
from goodbuddy_kb.ui.documents.tab import DOCUMENT_COLUMNS
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.widgets.table_model import RowsModel
from goodbuddy_kb.ui.widgets.theme import apply_theme
from tests.ui.helpers import MakeLibrary, open_from_row, shoot

TOOLTIP = QtCore.Qt.ItemDataRole.ToolTipRole

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Key = QtCore.Qt.Key
SECTION = "## Rule {n}\n\nRule {n} says topic{n}x about travel 出差第{n}条。\n\n"


@pytest.fixture
def window(window: MainWindow, make_library: MakeLibrary) -> MainWindow:
    """The window with the "Rules" library: a long document of 60 sections and a short one."""
    body = "".join(SECTION.format(n=n) for n in range(1, 61))
    files = {"rules.md": f"# Rules\n\n{body}", "short.md": "# Short\n\nOne short note.\n"}
    make_library(files, name="Rules")
    return window


def backend_client(data_dir: Path) -> BlockingClient:
    endpoint = Endpoint.read(data_dir)
    assert endpoint is not None
    return BlockingClient(endpoint.server_name, endpoint.secret, "test").open()


def press(qtbot: QtBot, widget: QtWidgets.QWidget, key: Any) -> None:
    widget.setFocus()
    qtbot.keyClick(widget, key)


def test_keyboard_only_maintenance(
    qtbot: QtBot, window: MainWindow, data_dir: Path, qapp: QtWidgets.QApplication
) -> None:
    tab = window.documents_tab
    dialog = open_from_row(qtbot, window, "rules.md")
    assert dialog.isModal() and dialog.windowTitle() == "Chunks — rules.md"
    assert "60 chunks, 60 retrievable" in dialog.info_label.text()
    assert "re-creates the chunks of the changed text" in dialog.warning.text()
    assert dialog.pager.page_label.text() == "1–50 of 60"
    shoot(dialog, "chunks-light-en")

    # paging
    # (a page may also reload on its own when a task ends: wait for the state, not a signal)
    press(qtbot, dialog.pager.next_button, Key.Key_Space)
    qtbot.waitUntil(lambda: dialog.pager.page_label.text() == "51–60 of 60", timeout=5_000)
    assert not dialog.pager.next_button.isEnabled() and dialog.model.rows[0].ordinal == 50
    press(qtbot, dialog.pager.prev_button, Key.Key_Space)
    qtbot.waitUntil(lambda: dialog.pager.page_label.text() == "1–50 of 60", timeout=5_000)

    # search within the document
    dialog.search.setFocus()
    qtbot.keyClicks(dialog.search, "topic17x")
    qtbot.waitUntil(lambda: dialog.total == 1, timeout=5_000)
    assert dialog.model.rows[0].heading_path[-1] == "Rule 17"
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 16)
    assert "Rule 17 says topic17x" in dialog.pane.editor.toPlainText()

    # edit; the chunk vanishes meanwhile (another client), so the save fails: the draft stays
    press(qtbot, dialog.table, Key.Key_F2)
    assert (
        dialog.editing and not dialog.pane.editor.isReadOnly() and dialog.pane.edit_note.isVisible()
    )
    assert not dialog.table.isEnabled(), "the table waits while a draft is open"
    dialog.pane.editor.selectAll()
    qtbot.keyClicks(dialog.pane.editor, "Rule 17 corrected: zebra")
    assert dialog.pane.count_label.text() == "24 / 20,000 characters"
    target = dialog.detail
    assert target is not None
    with backend_client(data_dir) as other:
        other.call(
            CHUNK_DELETE,
            k.ChunkRequest(
                library_id=dialog.library_id,
                document_id=dialog.document_id,
                chunk_id=target.chunk.id,
            ),
        )
    # a page arriving now (a task's end reloads it) lists nothing the search matches: the
    # draft stays in the editor (it was emptied)
    with qtbot.waitSignal(dialog.loaded, timeout=5_000):
        dialog.reload()
    assert dialog.pane.editor.toPlainText() == "Rule 17 corrected: zebra"
    qtbot.keyClick(dialog.pane.editor, Key.Key_S, QtCore.Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(dialog.pane.error_label.isVisible, timeout=5_000)
    assert "not found" in dialog.pane.error_label.text()
    assert dialog.editing and dialog.pane.editor.toPlainText() == "Rule 17 corrected: zebra"
    shoot(dialog, "chunks-failed-save-en")
    press(qtbot, dialog.pane.cancel_edit_button, Key.Key_Space)
    assert not dialog.editing

    # a successful edit of another chunk
    dialog.search.clear()
    qtbot.waitUntil(lambda: dialog.total == 59, timeout=5_000)
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 0)
    press(qtbot, dialog.table, Key.Key_F2)
    dialog.pane.editor.selectAll()
    qtbot.keyClicks(dialog.pane.editor, "Rule 1 corrected: walrus")
    with qtbot.waitSignal(dialog.notice, timeout=5_000) as saved:
        qtbot.keyClick(dialog.pane.editor, Key.Key_S, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert "Saved chunk #1" in saved.args[0], "counted from 1, as people count"
    qtbot.waitUntil(lambda: dialog.model.rowCount() > 0 and dialog.model.rows[0].manually_edited)
    assert "1 edited by hand" in dialog.info_label.text()

    # switch the chunk off with the keyboard
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 0)
    assert dialog.pane.switch.accessibleName() == "Used in search switch, on"
    with qtbot.waitSignal(dialog.notice, timeout=5_000) as off:
        press(qtbot, dialog.pane.switch, Key.Key_Space)
    assert "no search uses it" in off.args[0]
    qtbot.waitUntil(lambda: not dialog.model.rows[0].enabled, timeout=5_000)
    # the switch follows the chunk's refreshed details, which may arrive after the list's row
    qtbot.waitUntil(
        lambda: dialog.pane.switch.accessibleName() == "Used in search switch, off", timeout=5_000
    )
    assert dialog.model.data(dialog.model.index(0, 5)) == "– Off"
    # and greyed, as the workbench greys what no search shows as evidence
    foreground = QtCore.Qt.ItemDataRole.ForegroundRole
    assert dialog.model.data(dialog.model.index(0, 2), foreground) is not None
    assert dialog.model.data(dialog.model.index(1, 2), foreground) is None

    # delete with a confirmation naming the chunk
    dialog.table.setFocus()
    dialog.table.setCurrentIndex(dialog.model.index(1, 0))
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 1)
    qtbot.keyClick(dialog.table, Key.Key_Delete)
    qtbot.waitUntil(lambda: dialog.confirm_box is not None, timeout=2_000)
    box = dialog.confirm_box
    assert box is not None
    assert (
        "Delete chunk #2 · Rules > Rule 2" in box.text() and "not changed or deleted" in box.text()
    )
    confirm = box.property("confirmButton")
    assert confirm.text() == "Delete chunk #2 · Rules > Rule 2"
    shoot(box, "chunks-delete-confirm-en")
    with qtbot.waitSignal(dialog.notice, timeout=5_000):
        press(qtbot, confirm, Key.Key_Space)
    qtbot.waitUntil(lambda: dialog.total == 58, timeout=5_000)
    # the pane says no chunk is chosen: no "Used in search: on" of the deleted one under it
    if dialog.pane.chunk_title.text() == "No chunk selected.":
        assert not dialog.pane.switch.isVisible()
    else:
        assert dialog.pane.switch.isVisible()

    # the backend agrees
    with backend_client(data_dir) as other:
        listing = other.call(
            CHUNKS_LIST,
            k.ChunksListRequest(library_id=dialog.library_id, document_id=dialog.document_id),
        )
    assert listing.total == 58 and listing.document.edited_chunks == 1
    assert listing.document.disabled_chunks == 1 and listing.document.deleted_chunks == 2
    # the counts say so too (they read "… 1 edited by hand, 1 disabled" as if none were deleted)
    qtbot.waitUntil(lambda: dialog.info_label.text().endswith(", 2 deleted by hand"), timeout=5_000)

    # focus stays inside; Escape closes; the focus is back on the document row
    dialog.activateWindow()
    qtbot.waitUntil(lambda: qapp.activeWindow() is dialog, timeout=2_000)
    dialog.search.setFocus()
    assert qapp.focusWidget() is dialog.search
    for _ in range(25):
        qtbot.keyClick(qapp.focusWidget(), Key.Key_Tab)
        assert dialog.isAncestorOf(qapp.focusWidget()), "Tab never leaves the dialog"
    qtbot.keyClick(qapp.focusWidget(), Key.Key_Escape)
    qtbot.waitUntil(lambda: tab.chunks_dialog is None, timeout=5_000)
    assert window.focusWidget() is tab.document_view
    assert tab.documents.row_at(tab.document_view.currentIndex().row()).path == "rules.md"
    chunks_column = [col.header_key for col in DOCUMENT_COLUMNS].index("col.chunks")
    qtbot.waitUntil(
        lambda: "✎1 ⊘1 ✕2" in tab.documents.data(tab.documents.index(0, chunks_column)),
        timeout=5_000,
    )


def test_a_draft_is_not_thrown_away_by_escape(qtbot: QtBot, window: MainWindow) -> None:
    dialog = open_from_row(qtbot, window, "short.md")
    press(qtbot, dialog.table, Key.Key_F2)
    qtbot.keyClicks(dialog.pane.editor, " more")
    answered: list[bool] = []

    def answer_cancel() -> None:
        box = QtWidgets.QApplication.activeModalWidget()
        if isinstance(box, QtWidgets.QMessageBox):
            answered.append(True)
            box.button(QtWidgets.QMessageBox.StandardButton.Cancel).click()

    QtCore.QTimer.singleShot(300, answer_cancel)
    dialog.reject()
    assert answered and dialog.isVisible() and dialog.pane.editor.toPlainText().endswith(" more")
    dialog.pane.editor.setPlainText("x" * 20_001)
    assert (
        not dialog.pane.save_button.isEnabled()
        and "1 over the limit" in dialog.pane.count_label.text()
    )
    press(qtbot, dialog.pane.cancel_edit_button, Key.Key_Space)
    dialog.reject()
    qtbot.waitUntil(lambda: window.documents_tab.chunks_dialog is None, timeout=5_000)


def test_a_read_on_its_way_never_flips_the_switch_back(qtbot: QtBot, window: MainWindow) -> None:
    """A refresh that was already asking for the chunk when the person switched it off (a sync
    or graph notice reloads the dialog) must not show the old state again: its answer may have
    been read before the change."""
    dialog = open_from_row(qtbot, window, "short.md")
    assert dialog.pane.switch.isChecked()
    with qtbot.waitSignal(dialog.notice, timeout=5_000):
        dialog._show_current()  # a detail read on its way
        press(qtbot, dialog.pane.switch, Key.Key_Space)
    assert not dialog.pane.switch.isChecked(), "the old state came back"
    qtbot.waitSignal(dialog.shown, timeout=5_000).wait()
    assert not dialog.pane.switch.isChecked() and dialog.detail is not None
    assert not dialog.detail.chunk.enabled
    dialog.reject()


def test_switching_off_the_last_chunk_never_moves_the_switch(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Tried under Xvfb: switching off a one-chunk document brought up "no retrievable content"
    above the table, the switch moved 14 px down, and quick clicks at the same spot landed
    beside it. The warning now appears beside Close, and nothing above the pane moves."""
    dialog = open_from_row(qtbot, window, "short.md")
    dialog.resize(900, 600)
    qtbot.wait(50)
    switch = dialog.pane.switch
    where = switch.mapTo(dialog, QtCore.QPoint(0, 0))
    assert not dialog.empty_label.isVisible()
    with qtbot.waitSignal(dialog.shown, timeout=5_000):
        press(qtbot, switch, Key.Key_Space)
    qtbot.waitUntil(dialog.empty_label.isVisible, timeout=5_000)
    assert "no retrievable content" in dialog.empty_label.text()
    qtbot.wait(50)
    assert switch.mapTo(dialog, QtCore.QPoint(0, 0)) == where, "the switch moved"
    with qtbot.waitSignal(dialog.shown, timeout=5_000):
        press(qtbot, switch, Key.Key_Space)
    qtbot.waitUntil(lambda: not dialog.empty_label.isVisible(), timeout=5_000)
    assert switch.mapTo(dialog, QtCore.QPoint(0, 0)) == where
    dialog.reject()


def test_the_document_stays_selected_through_the_refreshes_a_change_brings(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Tried under Xvfb: after switching a chunk off and closing the dialog, the document's row
    was no longer selected and "View chunks" was greyed (the list's refresh dropped it)."""
    tab = window.documents_tab
    dialog = open_from_row(qtbot, window, "short.md")
    with qtbot.waitSignal(dialog.shown, timeout=5_000):
        press(qtbot, dialog.pane.switch, Key.Key_Space)
    press(qtbot, dialog.table, Key.Key_Escape)
    qtbot.waitUntil(lambda: tab.chunks_dialog is None, timeout=5_000)
    for _ in range(2):  # the refreshes a change notice brings, answered after the close
        tab.summary.setText("")
        tab.reload_documents()
        qtbot.waitUntil(lambda: bool(tab.summary.text()), timeout=5_000)
    doc = tab.current_document()
    assert doc is not None and doc.path == "short.md"
    assert tab.rebuild_doc_button.isEnabled()
    # and the row does not read as empty: its one chunk is kept, switched off
    assert chunk_count_text(doc) == "0 ⊘1"
    assert "switched off" in chunk_count_tooltip(doc)
    bar = tab.document_bar.reason.text()
    assert "0 of 1 chunk searched · ⊘ 1 chunk switched off (kept, not searched)" in bar, bar


def test_a_saved_chunk_stays_selected_when_a_change_notice_comes_first(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Tried under Xvfb: saving an edit to chunk #2 selected #1 — the change notice the save
    brings reloaded the page before the save's own reload answered, and that reload knew no
    chunk to select. The heading's tooltip reads the whole heading (the cell may cut it)."""
    dialog = open_from_row(qtbot, window, "rules.md")
    qtbot.waitUntil(lambda: dialog.detail is not None, timeout=5_000)
    heading = dialog.model.index(1, 2)
    tip = dialog.model.data(heading, QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tip.split("\n")[0] == "Rules > Rule 2", tip
    dialog.table.selectRow(1)
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 1)
    press(qtbot, dialog.table, Key.Key_F2)
    dialog.pane.editor.selectAll()
    qtbot.keyClicks(dialog.pane.editor, "Rule 2 corrected: heron")
    with qtbot.waitSignal(dialog.notice, timeout=5_000):
        qtbot.keyClick(dialog.pane.editor, Key.Key_S, QtCore.Qt.KeyboardModifier.ControlModifier)
    # the notice a save brings (vectors of the document), before the save's page answers
    dialog._on_changed(
        {"libraryIds": [dialog.library_id], "documents": True, "method": "knowledge:sync"}
    )
    qtbot.waitUntil(
        lambda: dialog.detail is not None and "heron" in dialog.pane.editor.toPlainText(),
        timeout=5_000,
    )
    chunk = dialog.current_chunk()
    assert chunk is not None and chunk.ordinal == 1 and chunk.manually_edited
    dialog.reject()


def test_a_notice_between_a_move_and_its_details_keeps_the_row_the_person_chose(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Seen in CI once an edit re-read the document's graph: the graph task's change notice
    arrived after the person moved to another row and before that row's details, and the reload
    it brought selected the row the details were still showing."""
    dialog = open_from_row(qtbot, window, "rules.md")
    qtbot.waitUntil(lambda: dialog.detail is not None, timeout=5_000)
    assert dialog.detail is not None and dialog.detail.chunk.ordinal == 0
    dialog.table.setCurrentIndex(dialog.model.index(1, 0))  # its details are on their way
    dialog._on_changed(
        {"libraryIds": [dialog.library_id], "documents": True, "method": "knowledge:graph"}
    )
    qtbot.waitSignal(dialog.loaded, timeout=5_000).wait()
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 1)
    chunk = dialog.current_chunk()
    assert chunk is not None and chunk.ordinal == 1, "the selection went back to the first row"
    # and the other order: the notice's page is asked for, then the person moves, then the
    # page arrives (CI, after an edit's graph re-read): the row moved to stays
    dialog._on_changed(
        {"libraryIds": [dialog.library_id], "documents": True, "method": "knowledge:graph"}
    )
    dialog.table.setCurrentIndex(dialog.model.index(2, 0))
    qtbot.waitSignal(dialog.loaded, timeout=5_000).wait()
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 2)
    chunk = dialog.current_chunk()
    assert chunk is not None and chunk.ordinal == 2, "the page put the selection back"
    # a switch's (or a save's) reload names the chunk it changed; the person moves on before
    # its page arrives (CI: the selection went back to the switched chunk): the row moved to
    dialog.reload(select=dialog.model.rows[2].id)
    dialog.table.setCurrentIndex(dialog.model.index(3, 0))
    qtbot.waitSignal(dialog.loaded, timeout=5_000).wait()
    qtbot.waitUntil(lambda: dialog.detail is not None and dialog.detail.chunk.ordinal == 3)
    chunk = dialog.current_chunk()
    assert chunk is not None and chunk.ordinal == 3, "the named chunk took the selection back"
    dialog.reject()


def test_looks(qtbot: QtBot, window: MainWindow, qapp: QtWidgets.QApplication) -> None:
    dialog = open_from_row(qtbot, window, "rules.md")
    # side by side at 1024 px a title wider than its column ends in "…", whole in its
    # tooltip (it read "haracter", cut at both ends)
    dialog.resize(1024, 700)
    qtbot.waitUntil(lambda: dialog.splitter.orientation() == QtCore.Qt.Orientation.Horizontal)
    header = dialog.table.horizontalHeader()
    assert header.textElideMode() == QtCore.Qt.TextElideMode.ElideRight
    tip = dialog.model.headerData(4, QtCore.Qt.Orientation.Horizontal, TOOLTIP)
    assert tip == "Characters"
    qtbot.waitUntil(lambda: not dialog.table.horizontalScrollBar().isVisible(), timeout=5_000)
    shoot(dialog, "chunks-1024x700-light-en")
    dialog.resize(800, 600)
    qtbot.waitUntil(lambda: dialog.splitter.orientation() == QtCore.Qt.Orientation.Vertical)
    shoot(dialog, "chunks-800x600-light-en")
    apply_theme(qapp, dark=True)
    try:
        shoot(dialog, "chunks-800x600-dark-en")
        dialog.reject()
        qtbot.waitUntil(lambda: window.documents_tab.chunks_dialog is None, timeout=5_000)
        set_language("zh")
        zh = open_from_row(qtbot, window, "rules.md")
        assert zh.windowTitle() == "分块 — rules.md" and "再次同步" in zh.warning.text()
        assert zh.pane.switch.accessibleName() == "参与检索开关，当前：开"
        qtbot.waitUntil(lambda: zh.detail is not None, timeout=5_000)
        # the heading after a dot (a title's own brackets nested in the label's read
        # "分块 #1（差旅报销制度（2024 修订版））"), escaped in the rich-text title
        assert "分块 #1 · Rules &gt; Rule 1" in zh.pane.chunk_title.text(), (
            zh.pane.chunk_title.text()
        )
        shoot(zh, "chunks-dark-zh")
        apply_theme(qapp, dark=False)
        zh.resize(800, 600)
        shoot(zh, "chunks-800x600-light-zh")
        zh.reject()
    finally:
        apply_theme(qapp, dark=False)
        set_language("en")


def test_chunk_model_passes_the_model_tester(qtmodeltester: Any) -> None:
    model: RowsModel[k.ChunkSummary] = RowsModel(CHUNK_COLUMNS)
    model.set_rows(
        [
            k.ChunkSummary(
                id="a" * 32,
                ordinal=3,
                role="child",
                parent_chunk_id="b" * 32,
                parent_ordinal=1,
                child_count=0,
                heading_path=["A", "B"],
                locator={"lineStart": 3, "lineEnd": 9},
                character_count=120,
                enabled=False,
                manually_edited=True,
                updated_at="2026-01-01T00:00:00Z",
                preview="text",
            )
        ]
    )
    qtmodeltester.check(model)
    assert model.data(model.index(0, 0)) == "#4"
    assert model.data(model.index(0, 1)) == "Child of parent #2"
    assert model.data(model.index(0, 3)) == "lines 3–9"


def test_an_edit_the_changed_file_replaced_is_kept_to_copy_until_dismissed(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """A helper's try: a typed line in a chunk, then a one-digit change to the file: the edit
    was gone, the row read "no problems", the chunks "0 edited by hand". The row marks it (↺),
    the dialog keeps it in full to copy back, until the person dismisses it."""
    dialog = open_from_row(qtbot, window, "short.md")
    press(qtbot, dialog.table, Key.Key_F2)
    dialog.pane.editor.selectAll()
    qtbot.keyClicks(dialog.pane.editor, "One short note. Ask Ge Xiaomei, extension 6199.")
    with qtbot.waitSignal(dialog.notice, timeout=5_000):
        qtbot.keyClick(dialog.pane.editor, Key.Key_S, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert not dialog.replaced_button.isVisible()
    qtbot.keyClick(dialog.table, Key.Key_Escape)
    tab = window.documents_tab
    qtbot.waitUntil(lambda: tab.chunks_dialog is None, timeout=5_000)
    (tmp_path / "docs" / "short.md").write_text("# Short\n\nOne short note, amended.\n", "utf-8")
    column = [col.header_key for col in DOCUMENT_COLUMNS].index("col.chunks")
    row = next(i for i, d in enumerate(tab.documents.rows) if d.path == "short.md")
    marks = lambda: tab.documents.data(tab.documents.index(row, column))  # noqa: E731
    qtbot.waitUntil(lambda: "↺1" in marks(), timeout=15_000)
    tip = tab.documents.data(tab.documents.index(row, column), TOOLTIP)
    assert "new chunk text replaced 1 edit of yours" in tip
    dialog = open_from_row(qtbot, window, "short.md")
    qtbot.waitUntil(dialog.replaced_button.isVisible, timeout=5_000)
    assert dialog.replaced_button.text() == "1 replaced edit of yours…"
    qtbot.mouseClick(dialog.replaced_button, QtCore.Qt.MouseButton.LeftButton)
    box = dialog.confirm_box
    assert box is not None and "extension 6199" in box.detailedText()
    shoot(box, "chunks-replaced-en")
    box.property("confirmButton").click()
    qtbot.waitUntil(lambda: not dialog.replaced_button.isVisible(), timeout=5_000)
    qtbot.waitUntil(lambda: "↺" not in marks(), timeout=5_000)
