"""The rebuild confirmation in the real window over a real backend (issue 28, item 4): with
edited, disabled and deleted chunks it names the counts and the documents and offers skip (the
default) / discard / cancel, and the choice made there is the one the backend's rebuild ran
with (the Tasks tab says what became of the work). Screenshots go to artifacts/screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import rebuild as rb
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    CHUNK_DELETE,
    CHUNK_UPDATE,
    CHUNKS_LIST,
    RETRIEVE,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.qt.widgets import QtCore, QtWidgets
from goodbuddy_kb.ui.documents.columns import CHUNKS_COLUMN
from goodbuddy_kb.ui.documents.manual_work import describe
from goodbuddy_kb.ui.i18n import set_language
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from tests.ui.helpers import library_with_folder, shoot, wait_call

pytestmark = [pytest.mark.gui, pytest.mark.integration]

EDITED = "Corrected by hand: zebracrossing allowances are capped at 40 euros."
WORDS = ("zebracrossing", "quokkafence", "walrusgate", "ordinaryword")


def policy() -> str:
    return "# Policy\n\n" + "\n\n".join(
        f"## Part {n}\n\n" + f"Part {n} of the travel policy covers {word} in detail. " * 8
        for n, word in enumerate(WORDS, 1)
    )


def manual_work_in_policy(qtbot: QtBot, win: MainWindow, folder: Path) -> str:
    files = {"policy.md": policy(), "other.md": "# Other\n\nNothing manual here.\n"}
    library_with_folder(qtbot, win, folder, files, name="Notes", vectors=False)
    library_id = win.current_library_id()
    assert library_id is not None
    doc = next(d for d in win.documents_tab.documents.rows if d.path == "policy.md")

    def ref(word: str) -> k.ChunkRequest:
        listed = wait_call(
            qtbot,
            win,
            CHUNKS_LIST,
            k.ChunksListRequest(library_id=library_id, document_id=doc.id, search=word),
        )
        return k.ChunkRequest(
            library_id=library_id, document_id=doc.id, chunk_id=listed.chunks[0].id
        )

    edit = k.ChunkUpdateRequest(**ref("zebracrossing").model_dump(), content=EDITED)
    wait_call(qtbot, win, CHUNK_UPDATE, edit)
    off = k.ChunkUpdateRequest(**ref("quokkafence").model_dump(), enabled=False)
    wait_call(qtbot, win, CHUNK_UPDATE, off)
    wait_call(qtbot, win, CHUNK_DELETE, ref("walrusgate"))
    settings = KnowledgeChunkingSettings(mode="fixed", target_characters=400, overlap_characters=0)
    wait_call(
        qtbot,
        win,
        SETTINGS_UPDATE,
        lib.SettingsUpdateRequest(library_id=library_id, chunking=settings),
    )
    return library_id


def open_box(qtbot: QtBot, win: MainWindow) -> QtWidgets.QMessageBox:
    tab = win.documents_tab
    qtbot.waitUntil(lambda: not tab.pending_label.isHidden(), timeout=5_000)
    tab.rebuild_box = None
    qtbot.mouseClick(tab.rebuild_library_button, QtCore.Qt.MouseButton.LeftButton)
    box = tab.rebuild_box
    assert box is not None
    qtbot.waitUntil(lambda: bool(box.property("manualWork")), timeout=10_000)
    qtbot.wait(50)  # the box lays itself out again for the longer text
    return box


def finished_rebuild(qtbot: QtBot, win: MainWindow, before: set[str]) -> tuple[t.TaskInfo, str]:
    tasks = win.tasks_tab.model

    def done() -> bool:
        return any(
            x.kind == "rebuild" and x.id not in before and x.state in t.FINISHED_STATES
            for x in tasks.rows
        )

    qtbot.waitUntil(done, timeout=30_000)
    row = next(i for i, x in enumerate(tasks.rows) if x.kind == "rebuild" and x.id not in before)
    return tasks.rows[row], tasks.data(tasks.index(row, 3))


def snippets(qtbot: QtBot, win: MainWindow, library_id: str, word: str) -> list[str]:
    res = wait_call(qtbot, win, RETRIEVE, r.RetrieveRequest(library_ids=[library_id], query=word))
    return [x.snippet for x in res.results if word in x.snippet]


def test_the_rebuild_dialog_names_manual_work_and_its_choice_reaches_the_backend(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    library_id = manual_work_in_policy(qtbot, window, tmp_path / "notes")
    box = open_box(qtbot, window)
    detail = box.informativeText()
    # the documents right under their count, before what the choice does with them
    assert detail.startswith(
        "Documents with manual chunk work: 1 (1 edited, 1 disabled, 1 deleted):\n"
        "• policy.md: 1 edited, 1 disabled, 1 deleted\n\nWhere the new chunks keep"
    )
    skip = box.property("acceptButton")
    assert skip.text() == "Rebuild, skip any whose work cannot be kept"
    assert box.defaultButton() is skip
    assert box.property("discardButton").text() == "Rebuild and discard manual work"
    assert box.escapeButton().text() == "Cancel"
    shoot(box, "rebuild-manual-work-light-en")
    seen = {x.id for x in window.tasks_tab.model.rows}
    qtbot.keyClick(box, QtCore.Qt.Key.Key_Return)  # the default: skip
    info, text = finished_rebuild(qtbot, window, seen)
    assert info.summary is not None and info.summary.manual_work is not None
    assert info.summary.manual_work.choice == "skip"
    assert info.summary.manual_work.skipped_paths == ["policy.md"]
    assert "1 skipped to keep manual work (1 edited, 1 disabled, 1 deleted)" in text
    assert "in policy.md" in text, "the summary names the skipped document"
    assert "new settings not yet applied to the skipped documents" in text
    assert snippets(qtbot, window, library_id, "zebracrossing") == [EDITED]
    assert snippets(qtbot, window, library_id, "walrusgate") == []
    # "waiting for rebuild" stays, and says why: the document kept on its old chunks (before,
    # it read as if the rebuild had not run)
    tab = window.documents_tab
    kept = "1 document keeps old chunks"
    qtbot.waitUntil(lambda: kept in tab.pending_label.text(), timeout=10_000)
    assert "choose “Rebuild and discard manual work”" in tab.pending_label.toolTip()
    header = window.detail.pending
    qtbot.waitUntil(lambda: "skipped 1 document" in header.toolTip(), timeout=10_000)
    # the library's header, the documents tab and the chunking settings say what is left, not
    # "⟳ Waiting for rebuild" as if none had run
    assert header.text() == "ⓘ " + kept
    assert tab.pending_label.text() == "ⓘ " + kept
    notice = window.settings_tab.rebuild_notice
    qtbot.waitUntil(lambda: "skipped 1 document" in notice.text(), timeout=10_000)
    assert notice.text().startswith("ⓘ The last rebuild skipped 1 document")
    assert "waiting for rebuild" not in notice.text()
    row = next(i for i, d in enumerate(tab.documents.rows) if d.path == "policy.md")
    tip = tab.documents.data(
        tab.documents.index(row, CHUNKS_COLUMN), QtCore.Qt.ItemDataRole.ToolTipRole
    )
    assert "The last rebuild skipped this document to keep its manual work" in str(tip)
    shoot(window, "rebuild-kept-old-chunks-light-en")
    window.resize(800, 600)
    qtbot.wait(100)
    assert tab.pending_label.sizeHint().width() <= tab.pending_label.width() + 1, "not cut"
    shoot(window, "rebuild-kept-old-chunks-800-en")

    # a document's own rebuild asks the same way
    tab.rebuild_box = None
    row = next(i for i, d in enumerate(tab.documents.rows) if d.path == "policy.md")
    tab.document_view.selectRow(row)
    qtbot.mouseClick(tab.rebuild_doc_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.rebuild_box is not None, timeout=10_000)
    asked = tab.rebuild_box
    assert asked is not None and asked.property("manualWork")
    qtbot.wait(50)
    assert "Rebuild “policy.md”?" in asked.text()
    assert asked.property("acceptButton").text() == "Rebuild, skip it if the work cannot be kept"
    shoot(asked, "rebuild-document-manual-work-light-en")
    asked.reject()

    box = open_box(qtbot, window)
    box.reject()  # cancel starts nothing
    qtbot.wait(300)
    assert not any(
        x.kind == "rebuild" and x.state in ("queued", "running")
        for x in window.tasks_tab.model.rows
    )

    box = open_box(qtbot, window)
    seen = {x.id for x in window.tasks_tab.model.rows}
    qtbot.mouseClick(box.property("discardButton"), QtCore.Qt.MouseButton.LeftButton)
    info, text = finished_rebuild(qtbot, window, seen)
    assert info.summary is not None and info.summary.manual_work is not None
    assert info.summary.manual_work.choice == "discard"
    assert "manual work discarded: 1 edited, 1 disabled, 1 deleted" in text
    assert snippets(qtbot, window, library_id, "walrusgate")
    qtbot.waitUntil(window.documents_tab.pending_label.isHidden, timeout=10_000)
    qtbot.waitUntil(window.detail.pending.isHidden, timeout=10_000)
    policy_row = next(d for d in window.documents_tab.documents.rows if d.path == "policy.md")
    assert not policy_row.kept_old_chunks


def test_the_manual_work_text_in_both_languages() -> None:
    preview = rb.RebuildPreviewResponse(
        documents=[
            rb.DocumentManualWork(
                document_id="d" * 32,
                path="policy.md",
                counts=rb.ManualWorkCounts(edited=2, deleted=1),
            )
        ],
        more_documents=9,
        total=rb.ManualWorkCounts(edited=3, disabled=4, deleted=1),
    )
    try:
        set_language("zh")
        zh = describe(preview)
        assert "有手动维护分块的文档：10 个（已编辑 3 个、已停用 4 个、已删除 1 个）" in zh
        assert "• policy.md：已编辑 2 个、已删除 1 个" in zh and "另有 9 个文档" in zh
    finally:
        set_language("en")
    en = describe(preview)
    assert "Documents with manual chunk work: 10 (3 edited, 4 disabled, 1 deleted)" in en
    assert "• policy.md: 2 edited, 1 deleted" in en and "… and 9 more documents" in en
