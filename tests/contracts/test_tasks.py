"""Reports of one task arriving out of order: a task only moves forward (queued → running →
finished), so an older report never takes a finished task back to "running"."""

from __future__ import annotations

from goodbuddy_kb.contracts.tasks import TaskInfo


def report(state: str, done: int, task: str = "a") -> TaskInfo:
    return TaskInfo.model_validate(
        {
            "id": task * 32,
            "libraryId": "b" * 32,
            "sourceId": None,
            "kind": "rebuild",
            "state": state,
            "done": done,
            "total": 36,
            "failedDocuments": 0,
            "current": None,
            "error": None,
            "createdAt": "2026-12-01T10:00:00",
            "finishedAt": None,
        }
    )


def test_a_running_report_is_older_than_the_tasks_end() -> None:
    running, cancelled = report("running", 27), report("cancelled", 27)
    assert running.is_older_than(cancelled)
    assert not cancelled.is_older_than(running)
    assert report("queued", 0).is_older_than(report("running", 1))


def test_reports_at_the_same_stage_or_of_other_tasks_are_not_ordered() -> None:
    assert not report("running", 5).is_older_than(report("running", 9))
    assert not report("running", 9).is_older_than(report("completed", 36, task="c"))
