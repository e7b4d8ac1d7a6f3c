"""Progress belongs to its library and its task, in the real window over a real backend and a
slow loopback embedding service: another library's header never shows this one's vector build;
the Tasks tab's bar follows the selected task, else the newest at work, else the run that ended
last (a build cancelled from the bar stays on it), never mixes a cancelled run with a later
one, shows no count when there is nothing counted, and reads exactly as the task's own row
(count, pace and time left)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    DOCUMENT_REBUILD,
    DOCUMENTS_LIST,
    LIBRARY_REBUILD,
    SETTINGS_UPDATE,
)
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings
from goodbuddy_kb.qt.widgets import QtCore
from goodbuddy_kb.ui.documents.columns import vector_status
from goodbuddy_kb.ui.mainwindow.window import MainWindow
from goodbuddy_kb.ui.tasks.progress import progress
from goodbuddy_kb.ui.tasks.tab import TASK_COLUMNS, TasksTab
from tests.servers.embedserver import Script, openai_server
from tests.ui.helpers import (
    create_library,
    graph_off,
    library_with_folder,
    shoot,
    use_embedding_service,
    wait_call,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]
SECTION = "## Section {n}\n\n" + "Paragraph {n} of document {d} is about topic{d}x{n}. " * 6
COUNT = re.compile(r"\d+/\d+")


def documents(count: int) -> dict[str, str]:
    return {
        f"doc{d:02}.md": f"# Document {d}\n\n"
        + "\n\n".join(SECTION.format(n=n, d=d) for n in range(1, 7))
        for d in range(1, count + 1)
    }


def fixed_mode(qtbot: QtBot, win: MainWindow, target: int = 400) -> None:
    """Small fixed-size chunks (a new ``target`` re-chunks, so a rebuild embeds anew)."""
    library_id = win.current_library_id()
    assert library_id is not None
    chunking = KnowledgeChunkingSettings(
        mode="fixed", target_characters=target, overlap_characters=0
    )
    request = lib.SettingsUpdateRequest(library_id=library_id, chunking=chunking)
    saved = wait_call(qtbot, win, SETTINGS_UPDATE, request)
    assert isinstance(saved, lib.LibrarySettings), saved


def select(win: MainWindow, name: str) -> None:
    row = next(
        i
        for i in range(win.model.rowCount())
        if (library := win.model.library_at(i)) is not None and library.name == name
    )
    win.libraries.list_view.setCurrentIndex(win.model.index(row))


def row_progress(tab: TasksTab, task_id: str) -> str:
    column = next(c for c in TASK_COLUMNS if c.header_key == "col.progress")
    task = next(row for row in tab.model.rows if row.id == task_id)
    return column.text(task)


def test_a_header_never_shows_another_librarys_vector_build(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    script = Script()
    with openai_server(script) as base:
        use_embedding_service(qtbot, window, base)
        library_with_folder(qtbot, window, tmp_path / "b", documents(2), name="Beta")
        tab = window.documents_tab
        qtbot.waitUntil(lambda: "matches the model" in tab.vector_label.text(), timeout=10_000)
        beta = tab.vector_label.text()
        script.delay_s = 2.0  # Alpha's vectors take two seconds per batch
        library_with_folder(
            qtbot,
            window,
            tmp_path / "a",
            documents(24),
            name="Alpha",
            vectors=False,
            before_import=lambda: fixed_mode(qtbot, window),
        )
        qtbot.waitUntil(lambda: "building" in tab.vector_label.text(), timeout=20_000)
        alpha = tab.vector_label.text()
        assert COUNT.search(alpha)
        tasks = window.tasks_tab
        window.tabs.setCurrentWidget(tasks)
        qtbot.waitUntil(lambda: any(row.state == "running" for row in tasks.model.rows))
        build = next(row for row in tasks.model.rows if row.state == "running")

        def nothing_of_alpha() -> None:
            assert "building" not in tab.vector_label.text(), "Alpha's build shown under Beta"
            assert all(row.id != build.id for row in tasks.model.rows)
            followed = tasks.followed()
            assert followed is None or followed.library_id != build.library_id
            # the bar counts the task it follows (Beta's own), never Alpha's build; their totals
            # can be equal (Alpha's count grows as it imports), so compare with the followed task
            expected = max(1, followed.total) if followed is not None else 1
            assert tasks.bar.maximum() in (0, expected)

        select(window, "Beta")
        nothing_of_alpha()  # from the moment Beta is chosen
        qtbot.waitUntil(lambda: tab.vector_label.text() == beta, timeout=5_000)
        for _ in range(10):  # Alpha's build goes on, its notifications keep arriving
            qtbot.wait(200)
            nothing_of_alpha()
        shoot(window, "progress-other-library-en")
        select(window, "Alpha")
        qtbot.waitUntil(lambda: "building" in tab.vector_label.text(), timeout=5_000)
        script.delay_s = 0.0
        qtbot.waitUntil(lambda: "matches the model" in tab.vector_label.text(), timeout=30_000)


def test_the_tasks_bar_follows_one_run_and_reads_as_its_row(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tasks = window.tasks_tab
    # A library whose folder is empty: its sync counts nothing, and the idle bar shows no count.
    create_library(qtbot, window, "Empty")
    assert tasks.bar.text() == "No tasks yet"
    (tmp_path / "empty").mkdir()
    window.documents_tab.add_source("folder", str(tmp_path / "empty"))
    qtbot.waitUntil(
        lambda: (
            bool(tasks.model.rows) and all(row.state == "completed" for row in tasks.model.rows)
        ),
        timeout=10_000,
    )
    assert tasks.model.rows[0].total == 0
    idle = tasks.bar.text()
    assert idle.endswith("✓ Completed") and not COUNT.search(idle), "no 0/1 when nothing counted"

    script = Script()
    with openai_server(script) as base:
        use_embedding_service(qtbot, window, base)
        library_with_folder(
            qtbot,
            window,
            tmp_path / "docs",
            documents(6),
            name="Handbook",
            before_import=lambda: graph_off(qtbot, window),  # the rebuilds' runs only
        )
        library_id = window.current_library_id()
        assert library_id is not None
        window.tabs.setCurrentWidget(tasks)
        script.delay_s = 0.6  # each document takes over half a second to embed
        first = rebuild(qtbot, window, 1600)
        qtbot.waitUntil(lambda: running_at(tasks, first, 2), timeout=20_000)
        tasks.view.selectRow(0)  # the person picks the running task and cancels it
        assert tasks.current() is not None and tasks.current().id == first  # type: ignore[union-attr]
        tasks.cancel_current()
        qtbot.waitUntil(lambda: state_of(tasks, first) == "cancelled", timeout=20_000)
        cancelled = next(row for row in tasks.model.rows if row.id == first)
        assert cancelled.done < 6

        script.delay_s = 0.3
        second = rebuild(qtbot, window, 800)
        seen: list[str] = []
        # The person selects the new run: its progress changes its row in place, so the
        # selection never blinks off (a reset of the list per report dropped it until it was
        # set again, and a window painted in between showed the bar a step behind the row).
        qtbot.waitUntil(lambda: running_at(tasks, second, 1), timeout=20_000)
        tasks.view.selectRow(next(i for i, r in enumerate(tasks.model.rows) if r.id == second))
        resets: list[int] = []
        tasks.model.modelAboutToBeReset.connect(lambda: resets.append(len(seen)))

        def bar_reads_as_the_row() -> bool:
            followed = tasks.followed()
            if followed is None or followed.id != second:
                return False
            assert tasks.current() is not None and tasks.current().id == second  # type: ignore[union-attr]
            text = tasks.bar.text()
            assert text.endswith(row_progress(tasks, second)), (text, row_progress(tasks, second))
            assert tasks.bar.value() == followed.done and tasks.bar.maximum() == 6
            seen.append(text)
            return followed.state == "completed"

        qtbot.waitUntil(bar_reads_as_the_row, timeout=30_000)
        assert len(set(seen)) >= 3 and resets == [], "progress never resets the list"
        assert any("left" in text for text in seen), "a running bar gives the time left"
        done = tasks.bar.text()
        assert done.startswith("Rebuild · ✓ Completed · 6/6 (100%)"), done
        assert "documents/s" in done, "the finished row's average pace, in the bar too"
        assert f"{cancelled.done}/6" not in done
        shoot(window, "progress-after-cancel-en")


def rebuild(qtbot: QtBot, win: MainWindow, target: int) -> str:
    """A library rebuild after a change of chunk size (so every document is embedded anew)."""
    fixed_mode(qtbot, win, target)
    library_id = win.current_library_id()
    assert library_id is not None
    started = wait_call(qtbot, win, LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id))
    task_id: str = started.task_id
    qtbot.waitUntil(lambda: any(row.id == task_id for row in win.tasks_tab.model.rows))
    return task_id


def running_at(tab: TasksTab, task_id: str, done: int) -> bool:
    task: Any = next((row for row in tab.model.rows if row.id == task_id), None)
    return task is not None and task.state == "running" and task.done >= done


def state_of(tab: TasksTab, task_id: str) -> str | None:
    task: t.TaskInfo | None = next((row for row in tab.model.rows if row.id == task_id), None)
    return task.state if task is not None else None


def test_the_bar_shows_a_file_name_holding_percent_signs_as_it_is(qtbot: QtBot) -> None:
    from goodbuddy_kb.qt.widgets import QtWidgets
    from goodbuddy_kb.ui.tasks.tab import _literal

    bar = QtWidgets.QProgressBar()
    qtbot.addWidget(bar)
    bar.setMaximum(10)
    bar.setValue(3)
    bar.setFormat(_literal("OCR 3/10 pages · %value%p.pdf (30%)"))
    assert bar.text().replace("\u2060", "") == "OCR 3/10 pages · %value%p.pdf (30%)"


def test_a_build_cancelled_from_the_bar_stays_on_the_bar(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """The person cancels the vector build the bar follows, unselected (a library's first,
    whose graph extraction, a newer task, is already done): the bar then says that build was
    cancelled, not that the graph extraction completed."""
    script = Script(delay_s=0.4)
    with openai_server(script) as base:
        use_embedding_service(qtbot, window, base)
        library_with_folder(qtbot, window, tmp_path / "docs", documents(24), vectors=False)
        tasks = window.tasks_tab
        window.tabs.setCurrentWidget(tasks)

        def build_running_after_graph() -> bool:
            rows = tasks.model.rows
            graph = next((r for r in rows if r.kind == "graph"), None)
            build = next((r for r in rows if r.kind == "vectorize"), None)
            return (
                graph is not None
                and graph.state == "completed"
                and build is not None
                and build.state == "running"
                and build.done > 0
                and rows.index(graph) < rows.index(build)  # the graph task is the newer
            )

        qtbot.waitUntil(build_running_after_graph, timeout=30_000)
        build = next(r for r in tasks.model.rows if r.kind == "vectorize")
        assert tasks.current() is None and tasks.followed().id == build.id  # type: ignore[union-attr]
        # The table takes a current row by itself when it gets the focus (its first, the
        # finished graph run): that is no choice of the person's, and the bar stays on the
        # build at work (it had shown "Sync · ✓ Completed" while a vectorisation ran).
        graph_row = next(i for i, r in enumerate(tasks.model.rows) if r.kind == "graph")
        tasks.view.selectionModel().setCurrentIndex(
            tasks.model.index(graph_row, 0), QtCore.QItemSelectionModel.SelectionFlag.NoUpdate
        )
        assert tasks.current() is None and tasks.followed().id == build.id  # type: ignore[union-attr]
        assert tasks.bar.text().startswith("Vectorise · ⟳ Running"), tasks.bar.text()
        qtbot.mouseClick(tasks.cancel_button, QtCore.Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: state_of(tasks, build.id) == "cancelled", timeout=20_000)
        qtbot.wait(300)
        followed = tasks.followed()
        assert followed is not None and followed.id == build.id
        assert tasks.bar.text().startswith("Vectorise · ⊘ Cancelled"), tasks.bar.text()
        stopped = next(r for r in tasks.model.rows if r.id == build.id)
        # what the import added counts: a stopped build never reads "18/18 (100%)"
        assert stopped.done < stopped.total == 144, (stopped.done, stopped.total)
        # The documents it had not reached read cancelled, not failed (the header said
        # "72 failed" of a build a person stopped; a helper's try), and "Sync now" continues.
        tab = window.documents_tab
        window.tabs.setCurrentWidget(tab)
        qtbot.waitUntil(lambda: "not vectorised: cancelled" in tab.summary.text(), timeout=10_000)
        assert " 0 failed," in tab.summary.text(), tab.summary.text()
        cells = [vector_status(d) for d in tab.documents.rows]
        assert "⊘ Cancelled" in cells and "✗ Failed" not in cells, cells
        tab.filter_box.setCurrentIndex(1)  # failed documents: none
        qtbot.waitUntil(lambda: tab.documents.rowCount() == 0, timeout=10_000)
        shoot(window, "vectors-cancelled-en")


def test_a_first_fill_beside_its_import_says_so_and_no_share_done(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """While a library's first import still adds chunks, its vectorisation's total grows with
    them: the share done fell ("40/83 (48%)" → "189/800 (23%)") and the time left meant nothing.
    It says "so far" and that the import goes on."""
    heard: list[t.TaskInfo] = []
    window.link.task.connect(lambda params: heard.append(t.TaskInfo.model_validate(params)))
    script = Script(delay_s=0.3)
    with openai_server(script) as base:
        use_embedding_service(qtbot, window, base)
        create_library(qtbot, window, "Many")
        folder = tmp_path / "many"
        folder.mkdir()
        for n in range(400):
            (folder / f"note{n:03}.md").write_text(f"# Note {n}\n\nNote {n} is on topic{n}.\n")
        window.documents_tab.add_source("folder", str(folder))
        qtbot.waitUntil(
            lambda: any(x.kind == "sync" and x.state == "completed" for x in heard),
            timeout=60_000,
        )
        builds = [x for x in heard if x.kind == "vectorize" and x.state == "running"]
        growing = [x for x in builds if x.current == t.STEP_GROWING]
        assert growing, [x.current for x in builds]
        shown = progress(growing[-1])
        assert " so far" in shown and "%" not in shown, shown
        script.delay_s = 0.0
        qtbot.waitUntil(
            lambda: any(x.kind == "vectorize" and x.state == "completed" for x in heard),
            timeout=60_000,
        )


def test_a_failure_stays_on_the_bar_until_it_is_looked_at(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """A rebuild failed (the embedding service down) and a newer task ended seconds later: the
    bar showed that one's "✓ Completed" and the failure was one ✗ row among many (a helper's
    try). The bar stays on the failure until a row is chosen."""
    script = Script()
    with openai_server(script) as base:
        use_embedding_service(qtbot, window, base)
        library_with_folder(qtbot, window, tmp_path / "docs", documents(3))
        library_id = window.current_library_id()
        assert library_id is not None
        fixed_mode(qtbot, window, target=600)  # the rebuild embeds anew
        tasks = window.tasks_tab
        window.tabs.setCurrentWidget(tasks)
        script.fail_after = script.calls  # the service goes down
        rebuild = wait_call(
            qtbot, window, LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id)
        )
        qtbot.waitUntil(lambda: state_of(tasks, rebuild.task_id) == "failed", timeout=30_000)
        script.fail_after = None  # back up: one document is rebuilt, and that works
        listed = wait_call(
            qtbot, window, DOCUMENTS_LIST, s.DocumentListRequest(library_id=library_id)
        )
        one = wait_call(
            qtbot,
            window,
            DOCUMENT_REBUILD,
            r.DocumentRebuildRequest(library_id=library_id, document_id=listed.documents[0].id),
        )
        qtbot.waitUntil(lambda: state_of(tasks, one.task_id) == "completed", timeout=30_000)
        # and the graph extraction after it: every newer task ended
        qtbot.waitUntil(
            lambda: all(x.state in t.FINISHED_STATES for x in tasks.model.rows), timeout=30_000
        )
        assert any(x.kind == "graph" and x.state == "completed" for x in tasks.model.rows[:2])
        followed = tasks.followed()
        assert followed is not None and followed.id == rebuild.task_id
        assert tasks.bar.text().startswith("Rebuild · ✗ Failed"), tasks.bar.text()
        shoot(window, "tasks-failure-stays-en")
        # looked at: then the bar follows the run that ended last again (the graph extraction
        # after the document's rebuild)
        row = next(i for i, x in enumerate(tasks.model.rows) if x.id == rebuild.task_id)
        tasks.view.selectRow(row)
        tasks.view.clearSelection()
        followed = tasks.followed()
        assert followed is not None and followed.kind == "graph" and followed.state == "completed"
