"""The documents tab: keyboard paths through its tables and pager, removing a source, adding
folders (chooser and drag and drop), and the vector state, statuses and summary it shows for the
current library."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.formats import READABLE_SUFFIXES
from goodbuddy_kb.contracts.methods import CHUNK_UPDATE, CHUNKS_LIST, EMBEDDING_UPDATE
from goodbuddy_kb.contracts.sources import Document
from goodbuddy_kb.datadir import Endpoint
from goodbuddy_kb.main_process.app import DATABASE_FILE
from goodbuddy_kb.qt.widgets import QtCore, QtGui, QtWidgets
from goodbuddy_kb.ui.documents.source_actions import DOCUMENT_SUFFIXES
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.ui.helpers import (
    KEY,
    MOD,
    MakeLibrary,
    create_library,
    handbook,
    open_window,
    shoot,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def test_tab_leaves_tables_and_reaches_the_document_table_and_paging(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    window.new_library()
    dialog = window.name_dialog
    assert dialog is not None
    dialog.name_edit.setText("Many")
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.current_library() is not None, timeout=5_000)
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(105):
        (folder / f"note{i:03}.md").write_text(f"# Note {i}\n\nLine {i}.\n", encoding="utf-8")
    tab = window.documents_tab
    qtbot.wait(300)  # the new library's (empty) sources have arrived
    assert not tab.sync_button.isEnabled(), "a library with no source has nothing to sync"
    tab.add_source("folder", str(folder))
    qtbot.waitUntil(lambda: tab.total == 105, timeout=60_000)
    assert tab.sync_button.isEnabled()
    qtbot.waitUntil(tab.pager.next_button.isEnabled, timeout=5_000)
    window.activateWindow()
    tab.source_view.setFocus()
    seen: list[QtWidgets.QWidget] = []
    assert window.focusWidget() is tab.source_view
    for _ in range(25):
        qtbot.keyClick(window.focusWidget(), KEY.Key_Tab)
        seen.append(window.focusWidget())
        if seen[-1] is tab.document_view:
            break
    assert tab.filter_box in seen and tab.pager.next_button in seen, "paging is reachable"
    assert seen[-1] is tab.document_view, "Tab leaves the sources table and reaches documents"
    assert seen.index(tab.filter_box) < seen.index(tab.pager.next_button), "in reading order"
    qtbot.keyClick(tab.document_view, KEY.Key_Tab)
    assert window.focusWidget() is not tab.document_view, "no trap in a table"


@pytest.mark.usefixtures("library")
def test_delete_in_the_document_table_never_offers_to_delete_the_library(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.documents_tab
    window.activateWindow()
    tab.document_view.setFocus()
    tab.document_view.selectRow(0)
    qtbot.keyClick(tab.document_view, KEY.Key_Delete)
    qtbot.wait(200)
    assert window.delete_box is None, "Delete in the document table does not delete a library"
    window.list_view.setFocus()
    qtbot.keyClick(window.list_view, KEY.Key_Delete)
    qtbot.waitUntil(lambda: window.delete_box is not None and window.delete_box.isVisible())
    box = window.delete_box
    assert box is not None
    assert box.defaultButton().text() == "Cancel" and "Handbook" in box.text()
    qtbot.keyClick(box, KEY.Key_Return)  # the default answer keeps the library
    qtbot.waitUntil(lambda: not box.isVisible())
    with qtbot.waitSignal(window.listed, timeout=5_000):  # a listing asked after the answer
        window.refresh()
    assert window.model.rowCount() == 1


@pytest.mark.usefixtures("library")
def test_the_watch_switch_reads_as_the_watch_column_with_no_source_selected(
    qtbot: QtBot, window: MainWindow
) -> None:
    """With no source selected the switch read unchecked (and off limits) beside a Watch
    column saying "On" (found under Xvfb). It shows the library's folders until one is chosen."""
    tab = window.documents_tab
    qtbot.waitUntil(lambda: tab.sources.rowCount() == 1, timeout=5_000)
    tab.source_view.setCurrentIndex(QtCore.QModelIndex())
    watched = tab.sources.rows[0].watch
    box = tab.watch_box
    assert not box.isEnabled()
    assert box.isChecked() == watched, "the switch says what the Watch column says"
    tab.source_view.selectRow(0)
    assert box.isEnabled() and box.isChecked() == watched
    box.click()  # switching it still switches the selected folder's watching
    qtbot.waitUntil(lambda: tab.sources.rows[0].watch != watched, timeout=5_000)
    tab.source_view.setCurrentIndex(QtCore.QModelIndex())
    assert not box.isEnabled() and box.isChecked() != watched


@pytest.mark.usefixtures("library")
def test_a_row_deselected_with_ctrl_click_is_not_acted_on(qtbot: QtBot, window: MainWindow) -> None:
    """Ctrl+click deselects a row but leaves it current: Remove, the watch switch and the
    document's actions (buttons and row menu) stayed on and acted on the row shown as not
    chosen; a right-click below the rows offered the menu's actions, which did nothing."""
    tab = window.documents_tab
    qtbot.waitUntil(lambda: tab.documents.rowCount() == 2, timeout=5_000)
    left = QtCore.Qt.MouseButton.LeftButton
    for view, actions in (
        (tab.source_view, (tab.remove_button, tab.watch_box)),
        (
            tab.document_view,
            (
                tab.rebuild_doc_button,
                tab.view_chunks_button,
                tab.open_source_button,
                *tab.document_view.actions(),  # the row menu
            ),
        ),
    ):
        middle = view.visualRect(view.model().index(0, 0)).center()
        qtbot.mouseClick(view.viewport(), left, pos=middle)
        assert all(a.isEnabled() for a in actions)
        qtbot.mouseClick(view.viewport(), left, MOD.ControlModifier, middle)
        assert not view.selectionModel().hasSelection() and view.currentIndex().row() == 0
        assert not any(a.isEnabled() for a in actions), [a.text() for a in actions if a.isEnabled()]
    tab.source_actions.remove_source()
    assert tab.source_actions.remove_box is None, "nothing chosen: nothing to remove"
    tab.row_actions.show_details()
    assert tab.row_actions.details_box is None


@pytest.mark.usefixtures("library")
def test_remove_source_asks_naming_it_and_defaults_to_cancel(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.documents_tab
    tab.source_view.selectRow(0)
    tab.source_actions.remove_source()
    box = tab.source_actions.remove_box
    assert box is not None and box.isVisible()
    assert str(tmp_path / "docs") in box.text()
    assert box.defaultButton().text() == "Cancel"
    # the button says a source goes (it read like deleting a library named "docs")
    assert box.property("confirmButton").text() == "Remove the source “docs”"
    assert "edited by hand" in box.text() and "graph" in box.text()
    qtbot.keyClick(box, KEY.Key_Return)
    qtbot.waitUntil(lambda: not box.isVisible())
    qtbot.wait(300)
    assert tab.sources.rowCount() == 1 and tab.documents.rowCount() == 2, "nothing removed"


@pytest.mark.usefixtures("library")
def test_dropping_files_and_folders_imports_them(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.documents_tab
    extra = tmp_path / "dropped"
    extra.mkdir()
    (extra / "a.md").write_text("# Dropped folder\n\nA dropped note.\n", encoding="utf-8")
    single = tmp_path / "single.md"
    single.write_text("# Dropped file\n\nA single dropped file.\n", encoding="utf-8")
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(extra)), QtCore.QUrl.fromLocalFile(str(single))])
    point = QtCore.QPointF(tab.document_view.geometry().center())
    actions = QtCore.Qt.DropAction.CopyAction
    enter = QtGui.QDragEnterEvent(
        point.toPoint(), actions, mime, QtCore.Qt.MouseButton.LeftButton, MOD.NoModifier
    )
    QtWidgets.QApplication.sendEvent(tab, enter)
    assert enter.isAccepted(), "the pane accepts files and folders"
    drop = QtGui.QDropEvent(point, actions, mime, QtCore.Qt.MouseButton.LeftButton, MOD.NoModifier)
    QtWidgets.QApplication.sendEvent(tab, drop)
    qtbot.waitUntil(lambda: tab.sources.rowCount() == 3, timeout=10_000)
    kinds = sorted(s.kind for s in tab.sources.rows)
    assert kinds == ["file", "folder", "folder"]

    def whole(row: int) -> bool:
        view = tab.source_view
        return view.viewport().rect().contains(view.visualRect(tab.sources.index(row, 0)))

    # the sources pane grew to show the three sources whole (it opened one row high)
    qtbot.waitUntil(lambda: all(whole(row) for row in range(3)), timeout=5_000)
    qtbot.waitUntil(lambda: tab.documents.rowCount() == 4, timeout=20_000)


def test_add_folder_adds_the_chosen_folder_and_the_chooser_knows_every_kind(
    qtbot: QtBot,
    data_dir: Path,
    tmp_path: Path,
    make_library: MakeLibrary,
) -> None:
    assert set(DOCUMENT_SUFFIXES) == set(READABLE_SUFFIXES), "the chooser offers what is read"
    win = open_window(qtbot, data_dir, "zh")
    try:
        make_library(handbook(), win=win)
        other = tmp_path / "more"
        other.mkdir()
        (other / "extra.md").write_text("# 额外\n\n补充说明。\n", encoding="utf-8")
        tab = win.documents_tab
        tab.source_actions.add_file_source()
        chooser = tab.source_actions.folder_dialog
        assert chooser is not None and chooser.isVisible()
        assert chooser.nameFilters()[0].startswith("支持的文档 (*.md")
        chooser.reject()
        assert tab.source_actions.folder_dialog is None and tab.sources.rowCount() == 1, (
            "Cancel adds nothing"
        )
        said: list[str] = []
        win.statusBar().messageChanged.connect(said.append)
        tab.source_actions.add_folder_source()
        chooser = tab.source_actions.folder_dialog
        assert chooser is not None
        chooser.setDirectory(str(tmp_path))
        chooser.selectFile(str(other))
        chooser.accept()
        qtbot.waitUntil(lambda: tab.sources.rowCount() == 2, timeout=10_000)
        assert str(other) in [s.location for s in tab.sources.rows]
        # the status line said nothing of it until its documents came (the list can show the
        # new source, from the sync's own progress, before the answer to the add arrives)
        added = f"已添加来源“{other}”，正在同步。"
        qtbot.waitUntil(lambda: added in said, timeout=10_000)
    finally:
        win.link.shutdown()
        set_language("en")


@pytest.mark.usefixtures("library")
def test_a_refused_web_address_stays_in_its_form_with_the_reason(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Add web page closed on a refused address, what was typed lost and the reason only in the
    status bar; it opened 200 px wide, its field a third of an address (a helper at 800×600)."""
    tab = window.documents_tab
    dialog = tab.source_actions.add_web_source()
    assert dialog is not None and dialog.isVisible() and dialog.width() >= 400
    (field,) = dialog.findChildren(QtWidgets.QLineEdit)
    # typing goes to the address, Enter asks (under Xvfb it opened with no field focused)
    qtbot.waitUntil(field.hasFocus, timeout=2_000)
    qtbot.keyClick(field, QtCore.Qt.Key.Key_Return)
    assert "Enter the page's address" in dialog.error_label.text()
    qtbot.keyClicks(field, "ftp://intranet.example/policy")
    qtbot.keyClick(field, QtCore.Qt.Key.Key_Return)  # Enter still asks after a refusal
    qtbot.waitUntil(lambda: "http" in dialog.error_label.text(), timeout=5_000)
    assert dialog.isVisible() and field.text() == "ftp://intranet.example/policy"
    assert dialog.ok_button.isEnabled()
    dialog.reject()
    assert tab.source_actions.web_dialog is None and tab.sources.rowCount() == 1


@pytest.mark.usefixtures("library")
def test_vector_state_is_one_truthful_line_and_follows_the_model_switch(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = window.documents_tab
    qtbot.waitUntil(lambda: "✓ index matches the model" in tab.vector_label.text(), timeout=10_000)
    assert "hashing-384 (test hashing)" in tab.vector_label.text()
    window.link.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(
            connection=m.EmbeddingConnection(
                kind="openai-compatible", base_url="http://127.0.0.1:9", model="other"
            )
        ),
        lambda _r, _e: None,
    )
    qtbot.waitUntil(lambda: "rebuild the vectors" in tab.vector_label.text(), timeout=10_000)
    text = tab.vector_label.text()
    assert "other (OpenAI-compatible)" in text and "hashing-384 (test hashing)" in text
    qtbot.waitUntil(
        lambda: {d.status.vector for d in tab.documents.rows} == {"incompatible"}, timeout=10_000
    )
    shoot(window, "defect5-model-switched-en")


def test_statuses_follow_the_first_vectorisation_live(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, make_library: MakeLibrary
) -> None:
    window.link.call(
        EMBEDDING_UPDATE,
        m.EmbeddingUpdateRequest(connection=m.EmbeddingConnection(kind="deterministic")),
        lambda _r, _e: None,
    )
    seen_vector: set[str] = set()
    seen_labels: list[str] = []
    tab = window.documents_tab

    def watch() -> None:
        seen_vector.update(d.status.vector for d in tab.documents.rows)
        seen_labels.append(tab.vector_label.text())

    timer = QtCore.QTimer()
    timer.timeout.connect(watch)
    timer.start(20)
    make_library(handbook())
    # the header follows the build's end by a refresh: it must get there, not be there already
    qtbot.waitUntil(lambda: "✓ index matches the model" in tab.vector_label.text(), timeout=10_000)
    timer.stop()
    assert "disabled" not in seen_vector, "rows never say 'off' while vectors are queued"
    assert not any("not configured" in label for label in seen_labels)


@pytest.mark.usefixtures("library")
def test_summary_counts_documents_with_no_retrievable_content(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, data_dir: Path
) -> None:
    tab = window.documents_tab
    assert "no retrievable content" not in tab.summary.text()
    # every chunk of one document switched off (what chunk maintenance will do), by another
    # writer of the same database file
    conn = sqlite3.connect(data_dir / DATABASE_FILE)
    with conn:
        conn.execute(
            "UPDATE chunks SET enabled = 0 WHERE document_id ="
            " (SELECT id FROM documents WHERE relative_path = 'manual_en.md')"
        )
    conn.close()
    tab.refresh()
    qtbot.waitUntil(lambda: "1 with no retrievable content" in tab.summary.text(), timeout=5_000)
    assert "1 usable for full-text" in tab.summary.text()

    def shown() -> Document:
        return next(d for d in tab.documents.rows if d.path == "manual_en.md")

    # the summary and the rows are two answers: the rows may come a moment after the summary
    qtbot.waitUntil(lambda: shown().status.fulltext == "empty", timeout=5_000)
    row = shown()
    cell = tab.documents.data(tab.documents.index(tab.documents.rows.index(row), 2))
    assert cell == "∅ No retrievable content"
    # nothing was vectorised either: not "✓ Done" beside it
    vector = tab.documents.index(tab.documents.rows.index(row), 3)
    assert tab.documents.data(vector) == "– None"
    tip = tab.documents.data(vector, QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tip == "No chunk of this document can be retrieved: there is nothing to vectorise."


def test_a_refused_source_says_why_in_a_box(
    qtbot: QtBot, window: MainWindow, make_library: MakeLibrary
) -> None:
    """A folder whose files another source already brings in is refused; the refusal was a
    status-bar line, cut at the window's edge and gone in seconds, after the chooser had closed
    (tried under Xvfb at 800×600)."""
    folder = make_library({"a.md": "# A\n\nalpha\n", "sub/b.md": "# B\n\nbeta\n"}, vectors=False)
    actions = window.documents_tab.source_actions
    actions.add_source("folder", str(folder / "sub"))
    qtbot.waitUntil(lambda: actions.refusal_box is not None, timeout=10_000)
    box = actions.refusal_box
    assert box is not None and box.isVisible()
    assert box.windowTitle() == "Cannot add the source"
    assert str(folder / "sub") in box.text()
    assert f"1 file of this folder is already taken in by the source {folder}" in box.text()
    assert "first: b.md" in box.text() and "source add --exclude" in box.text()
    box.accept()
    qtbot.waitUntil(lambda: actions.refusal_box is None, timeout=2_000)
    assert len(window.documents_tab.sources.rows) == 1


def test_a_sync_says_how_it_ended_and_what_manual_work_a_changed_file_dropped(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, data_dir: Path
) -> None:
    """ "Added the source …; syncing it now." stayed after the sync had ended; and a file edited
    on disk while one of its chunks held a hand edit lost the edit at the watcher's sync with no
    word (the ✎ mark just went; a helper's try). Both endings are said in the status line."""
    create_library(qtbot, window, "Notes")
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "leave.md").write_text("# Leave\n\nAnnual leave is five days.\n", encoding="utf-8")
    tab = window.documents_tab
    qtbot.wait(300)
    said: list[str] = []  # the sync's end may be followed at once by its vectorisation's
    window.statusBar().messageChanged.connect(said.append)
    tab.add_source("folder", str(folder))
    qtbot.waitUntil(lambda: any("✓" in m and "Sync" in m for m in said), timeout=20_000)
    assert any("Sync" in m and "1 written" in m for m in said)
    qtbot.waitUntil(lambda: tab.total == 1, timeout=5_000)
    document = tab.documents.row_at(0)
    endpoint = Endpoint.read(data_dir)
    assert endpoint is not None
    with BlockingClient(endpoint.server_name, endpoint.secret, "test").open() as other:
        listed = other.call(
            CHUNKS_LIST,
            k.ChunksListRequest(library_id=document.library_id, document_id=document.id),
        )
        other.call(
            CHUNK_UPDATE,
            k.ChunkUpdateRequest(
                library_id=document.library_id,
                document_id=document.id,
                chunk_id=listed.chunks[0].id,
                content="Annual leave is five days (checked by HR).",
            ),
        )
    (folder / "leave.md").write_text("# Leave\n\nAnnual leave is six days.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: any("1 edited" in m for m in said), timeout=20_000)
    assert any("1 edited" in m and "leave.md" in m for m in said)
