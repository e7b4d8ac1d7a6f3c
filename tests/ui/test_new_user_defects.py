"""Defects a new user met in the real window (issue 13), through the real GUI and backend."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import EMBEDDING_UPDATE
from goodbuddy_kb.main_process.app import DATABASE_FILE
from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.tasks.progress import progress
from tests.ui.test_workspace import create_library_with_folder, open_window, shoot

pytestmark = [pytest.mark.gui, pytest.mark.integration]


@pytest.fixture
def window(qtbot: QtBot, data_dir: Path) -> Iterator[MainWindow]:
    win = open_window(qtbot, data_dir, "en")
    yield win
    win.link.shutdown()


def create(qtbot: QtBot, win: MainWindow, name: str) -> None:
    qtbot.mouseClick(win.new_button, QtCore.Qt.MouseButton.LeftButton)
    dialog = win.name_dialog
    assert dialog is not None
    dialog.name_edit.setText(name)
    qtbot.mouseClick(dialog.ok_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=5_000)


def test_a_new_library_is_selected_and_receives_the_next_folder(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    create(qtbot, window, "First")
    qtbot.waitUntil(lambda: window.detail.title.text() == "First", timeout=5_000)
    for name in ("Second", "Third"):
        create(qtbot, window, name)
        qtbot.wait(600)  # let every refresh the creation caused answer
        library = window.current_library()
        assert library is not None and library.name == name
        assert window.detail.title.text() == name
        assert window.documents_tab.library_id == library.id


def test_vector_state_is_one_truthful_line_and_follows_the_model_switch(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, window, tmp_path)
    tab = window.documents_tab
    qtbot.waitUntil(lambda: "✓ index matches the model" in tab.vector_label.text(), timeout=10_000)
    assert "deterministic" in tab.vector_label.text()
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
    assert "openai-compatible: other" in text and "deterministic" in text
    qtbot.waitUntil(
        lambda: {d.status.vector for d in tab.documents.rows} == {"incompatible"}, timeout=10_000
    )
    shoot(window, "defect5-model-switched-en")


def test_statuses_follow_the_first_vectorisation_live(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
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
    create_library_with_folder(qtbot, window, tmp_path)
    timer.stop()
    assert "disabled" not in seen_vector, "rows never say 'off' while vectors are queued"
    assert not any("not configured" in label for label in seen_labels)
    assert "✓ index matches the model" in tab.vector_label.text()


def test_loading_model_step_reads_as_such() -> None:
    from goodbuddy_kb.contracts.tasks import STEP_LOADING_MODEL, TaskInfo

    info = TaskInfo.model_validate(
        {
            "id": "a" * 32,
            "libraryId": "b" * 32,
            "sourceId": None,
            "kind": "vectorize",
            "state": "running",
            "done": 0,
            "total": 0,
            "failedDocuments": 0,
            "current": STEP_LOADING_MODEL,
            "error": None,
            "createdAt": "2026-01-01T00:00:00",
            "finishedAt": None,
        }
    )
    assert progress(info) == "⟳ Loading the embedding model…"


def test_workbench_starts_from_the_library_settings(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, window, tmp_path)
    tab = window.settings_tab
    tab.fields["topK"].setValue(3)  # type: ignore[attr-defined]
    tab.rerank_box.setChecked(True)
    tab.save_retrieval_settings()
    qtbot.waitUntil(lambda: "Top K 3" in window.detail.retrieval.text(), timeout=5_000)
    window.open_workbench()
    bench = window.workbench
    assert bench is not None
    qtbot.waitUntil(lambda: bench.library_settings is not None, timeout=5_000)
    assert bench.top_k.value() == 3 and bench.rerank.currentData() == "local"
    assert "top K 3" in bench.effective.text() and "Local rules" in bench.effective.text()
    sent: list[r.RetrieveRequest] = []
    original = bench.link.call

    def spy(spec, request, done):  # type: ignore[no-untyped-def]
        if isinstance(request, r.RetrieveRequest):
            sent.append(request)
        return original(spec, request, done)

    bench.link.call = spy  # type: ignore[method-assign]
    bench.query.setPlainText("出差住宿")
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        bench.run()
    assert sent[-1].overrides is None and sent[-1].rerank is None, "nothing overridden"
    assert bench.results.rowCount() == 3 and bench.response is not None
    assert bench.response.diagnostics.rerank.applied == "local"
    bench.top_k.setValue(5)
    assert "this test only" in bench.effective.text()
    with qtbot.waitSignal(bench.finished_search, timeout=20_000):
        bench.run()
    assert sent[-1].overrides is not None and sent[-1].overrides.top_k == 5
    assert sent[-1].rerank is None
    bench.reject()


def test_settings_refuse_weights_no_channel_can_use_inline(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    create_library_with_folder(qtbot, window, tmp_path)
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


def test_summary_counts_documents_with_no_retrievable_content(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, data_dir: Path
) -> None:
    create_library_with_folder(qtbot, window, tmp_path)
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
    row = next(d for d in tab.documents.rows if d.path == "manual_en.md")
    assert row.status.fulltext == "empty"
    cell = tab.documents.data(tab.documents.index(tab.documents.rows.index(row), 2))
    assert cell == "∅ No retrievable content"
