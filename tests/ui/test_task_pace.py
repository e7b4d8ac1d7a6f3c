"""How a task's pace and steps read in the Tasks tab (both languages) and in the CLI."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from goodbuddy_kb.cli import tasks as cli_sources
from goodbuddy_kb.contracts.tasks import STEP_GROWING, TaskInfo
from goodbuddy_kb.ui import i18n
from goodbuddy_kb.ui.tasks.follow import ended_text
from goodbuddy_kb.ui.tasks.progress import summary
from goodbuddy_kb.ui.tasks.tab import TASK_COLUMNS, progress


def info(**changes: object) -> TaskInfo:
    base: dict[str, object] = {
        "id": "a" * 32,
        "library_id": "b" * 32,
        "source_id": None,
        "kind": "vectorize",
        "state": "running",
        "done": 40,
        "total": 256,
        "failed_documents": 0,
        "current": None,
        "error": None,
        "created_at": "2026-11-30T10:00:00",
        "finished_at": None,
        "rate": 2.4,
        "eta_seconds": 90.0,
    }
    base.update(changes)
    return TaskInfo(**base)  # type: ignore[arg-type]


@pytest.fixture
def english() -> Iterator[None]:
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def progress_cell(task: TaskInfo) -> str:
    column = next(c for c in TASK_COLUMNS if c.header_key == "col.progress")
    return column.text(task)


def test_running_task_shows_rate_and_time_left(english: None) -> None:
    assert progress_cell(info()) == "40/256 (15%) · 2.4 chunks/s · about 1 min 30 s left"
    assert progress_cell(info(rate=None, eta_seconds=None)).endswith("estimating the pace…")
    assert progress_cell(info(rate=0.0, eta_seconds=None)).endswith("no progress right now")
    assert "0.13 chunks/s" in progress_cell(info(rate=0.134))
    fast = info(kind="rebuild", done=16, total=61, rate=175.6, eta_seconds=0.26)
    assert progress_cell(fast) == "16/61 (26%) · 176 documents/s · about 1 s left", "never 0 s"
    finished = info(state="completed", done=256, rate=3.14159, eta_seconds=None)
    assert progress_cell(finished) == "256/256 (100%) · 3.1 chunks/s"
    # a finished task of one document names it (every "Vectorise 1/1" row read the same)
    one = info(state="completed", done=1, total=1, document_id="c" * 32, current="notes/a.md")
    assert summary(one) == "notes/a.md · 1 chunk vectorised"
    library = info(state="completed", current="notes/a.md")
    assert summary(library) == "40 chunks vectorised", "a library's task names no document"
    idle = info(state="completed", done=0, total=0, rate=None, eta_seconds=None)
    assert progress_cell(idle) == "nothing to do", "not 0/0 (100%)"
    sync = info(kind="sync", rate=12.0, eta_seconds=4000.0)
    assert progress_cell(sync).endswith("12.0 documents/s · about 1 h 06 min left")


def test_pace_in_chinese() -> None:
    i18n.set_language("zh")
    try:
        assert progress_cell(info()) == "40/256（15%） · 2.4 块/秒 · 约剩 1 分 30 秒"
    finally:
        i18n.set_language("en")


def test_cli_line_and_bar_text() -> None:
    assert cli_sources.pace_text(info()) == "2.4 chunks/s, about 1 min 30 s left"
    assert cli_sources.pace_text(info(rate=None, eta_seconds=None)) == "estimating the pace…"
    line = cli_sources._task_line(info(state="completed", done=256, eta_seconds=None))
    assert "256/256 chunks vectorised (2.4 chunks/s)" in line


def test_loading_model_step_reads_as_such() -> None:
    from goodbuddy_kb.contracts.tasks import STEP_CONNECTING, STEP_LOADING_MODEL, TaskInfo

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
    # a service elsewhere loads nothing here: it is asked (a helper read "loading" as local)
    asked = info.model_copy(update={"current": STEP_CONNECTING})
    assert progress(asked) == "⟳ Connecting to the embedding service…"


def test_a_graph_run_says_what_it_found_not_documents_written(english: None) -> None:
    from goodbuddy_kb.contracts.graph import GraphRunSummary
    from goodbuddy_kb.contracts.tasks import TaskSummary
    from goodbuddy_kb.ui.tasks.progress import summary

    found = GraphRunSummary(run_id="r", strategy="model", chunks=12, entities=7, relations=1)
    done = info(kind="graph", state="completed", summary=TaskSummary(graph=found))
    assert summary(done) == "chunks read 12 · entity mentions 7 · relation mentions 1"
    # a local run says what the graph holds after it: mentions are not the graph (39 relation
    # mentions beside a graph tab of 5 relations read as a contradiction)
    local = found.model_copy(
        update={"strategy": "local", "total_entities": 5, "total_relations": 1}
    )
    ran = info(kind="graph", state="completed", summary=TaskSummary(graph=local))
    assert summary(ran).endswith(" · the graph now holds 5 entities and 1 relation")
    i18n.set_language("zh")
    assert summary(done) == "已读分块 12 · 实体提及 7 · 关系提及 1"
    assert summary(ran).endswith(" · 图谱现有 5 个实体、1 个关系")
    sync = info(kind="sync", state="completed", summary=TaskSummary(succeeded=3))
    i18n.set_language("en")
    assert summary(sync) == "3 written"
    # a vectorisation says how many chunks it vectorised (its cell was blank)
    vectors = info(kind="vectorize", state="completed", done=40, total=40)
    assert summary(vectors) == "40 chunks vectorised"
    assert summary(info(kind="vectorize", state="running")) == ""
    i18n.set_language("zh")
    assert summary(vectors) == "已向量化 40 个分块"
    i18n.set_language("en")


def test_a_first_fill_says_what_is_written_is_searchable() -> None:
    from goodbuddy_kb.contracts.tasks import STEP_FILLING

    filling = info(current=STEP_FILLING)
    column = next(c for c in TASK_COLUMNS if c.header_key == "col.progress")
    i18n.set_language("zh")
    try:
        assert (
            progress_cell(filling)
            == "40/256（15%） · 2.4 块/秒 · 约剩 1 分 30 秒 · 已写入的向量已可检索"
        )
        assert column.tooltip is not None and column.tooltip(filling) == progress_cell(filling)
    finally:
        i18n.set_language("en")
    assert progress_cell(filling).endswith(
        "2.4 chunks/s · about 1 min 30 s left · what is written is already searchable"
    )
    done = info(current=STEP_FILLING, state="completed", done=256, eta_seconds=None)
    assert progress_cell(done) == "256/256 (100%) · 2.4 chunks/s"


def test_a_vectorisation_started_again_by_itself_says_so() -> None:
    from goodbuddy_kb.contracts.tasks import STEP_RESUMED

    again = info(current=STEP_RESUMED)
    assert progress_cell(again).endswith(
        "about 1 min 30 s left · started again by itself: the app stopped before it finished"
    )
    i18n.set_language("zh")
    try:
        assert progress_cell(again).endswith("应用上次在完成前停止，已自动重新开始")
        assert i18n.tr("task.state.interrupted") == "⚠ 已中断"
    finally:
        i18n.set_language("en")
    # the interrupted row it follows gives no advice the app has already taken ("run again")
    assert i18n.tr("task.state.interrupted") == "⚠ Interrupted"


def test_a_queued_task_says_nothing_of_counting(english: None) -> None:
    """A queued task read "… Queued" beside "counting what there is to do…" (a helper's try):
    it waits its turn and counts nothing yet; once running, it counts."""
    waiting = info(state="queued", done=0, total=0, rate=None, eta_seconds=None)
    assert progress_cell(waiting) == ""
    counting = info(state="running", done=0, total=0, rate=None, eta_seconds=None)
    assert progress_cell(counting) == "counting what there is to do…"


def test_a_first_fill_beside_its_import_shows_no_share_done(english: None) -> None:
    """While the import still adds chunks the total grows with them: "40/83 (48%)" became
    "189/800 (23%)" and its time left meant nothing (a helper's try). It says how many so far."""
    growing = info(current=STEP_GROWING, done=40, total=83, rate=12.0, eta_seconds=3.0)
    cell = progress_cell(growing)
    assert cell.startswith("40/83 chunks so far · 12") and cell.endswith(
        "the import is still adding chunks; what is written is already searchable"
    ), cell
    assert "%" not in cell and "left" not in cell, cell
    i18n.set_language("zh")
    assert progress_cell(growing).startswith("目前 40/83 个分块"), progress_cell(growing)


def test_a_task_ended_for_a_reason_of_its_own_says_it(english: None) -> None:
    """A helper's try: the status bar read "“Slow” · Vectorise · ⊘ Cancelled · 994/1600 (62%) ·
    994 chunks vectorised" for the library just deleted, as if the work were kept."""
    gone = info(state="cancelled", done=994, total=1600, error="the library was deleted")
    assert ended_text(gone).endswith(" · the library was deleted"), ended_text(gone)
    i18n.set_language("zh")
    assert ended_text(gone).endswith(" · 知识库已删除"), ended_text(gone)
    mine = info(state="cancelled", done=5, total=9, error="cancelled by the user")
    assert "cancelled by the user" not in ended_text(mine) and "取消" in ended_text(mine)
