"""The one pace/duration formatter: the caller's words and separator, the same numbers."""

from __future__ import annotations

from goodbuddy_kb.contracts.pace import duration_text, pace_text, rate_text
from goodbuddy_kb.contracts.tasks import TaskInfo

WORDS = {
    "task.rate.vectorize": "{rate} c/s",
    "task.rate.other": "{rate} d/s",
    "task.estimating": "EST",
    "task.eta": "ETA {left}",
    "task.stalled": "STALLED",
    "duration.hours": "{h}h{m:02d}",
    "duration.minutes": "{m}m{s:02d}",
    "duration.seconds": "{s}s",
}


def say(key: str, **values: object) -> str:
    return WORDS[key].format(**values)


def task(**changes: object) -> TaskInfo:
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


def test_durations_and_rates() -> None:
    assert [duration_text(s, say) for s in (45, 200, 3900)] == ["45s", "3m20", "1h05"]
    assert (rate_text(0.134), rate_text(2.44)) == ("0.13", "2.4")
    # a fast sync of small files: whole documents a second, not "1103.0"
    assert (rate_text(99.4), rate_text(1103.0), rate_text(175.64)) == ("99.4", "1103", "176")


def test_pace_uses_the_callers_words_and_separator() -> None:
    assert pace_text(task(), say, join=" | ") == "2.4 c/s | ETA 1m30"
    assert pace_text(task(eta_seconds=None), say, join=", ") == "2.4 c/s, STALLED"
    assert pace_text(task(rate=None), say, join=", ") == "EST"
    assert pace_text(task(kind="sync", state="completed"), say, join=", ") == "2.4 d/s"
    assert pace_text(task(state="completed", rate=None), say, join=", ") == ""
