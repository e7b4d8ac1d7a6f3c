"""How a task's pace and a duration read: the one formatter the Tasks tab and the CLI share.

The wording belongs to the caller's language, so the formatter takes a ``say(key, **values)``
function (the GUI's ``tr``; the CLI's English table) and asks it for these keys:

    task.rate.vectorize {rate}   task.rate.other {rate}   task.estimating   task.stalled
    task.eta {left}              duration.hours {h} {m}   duration.minutes {m} {s}
    duration.seconds {s}

``join`` is what stands between the rate and the time left (" · " in the GUI, ", " in the CLI).
"""

from __future__ import annotations

from typing import Protocol

from goodbuddy_kb.contracts.tasks import TaskInfo


class Say(Protocol):
    """A message key and its values in the reader's words (``ui.i18n.tr`` is one)."""

    def __call__(self, key: str, **values: object) -> str: ...


def rate_text(rate: float) -> str:
    """Two significant digits below 1 (0.13), one decimal up to 100 (2.4, 17.5), whole numbers
    above (1103, not "1103.0")."""
    if rate >= 99.5:
        return f"{rate:.0f}"
    return f"{rate:.2f}" if rate < 1 else f"{rate:.1f}"


def duration_text(seconds: float, say: Say) -> str:
    """``1 h 05 min``, ``3 min 20 s``, ``45 s`` (in English); work still left never reads as
    ``0 s`` (a fast rebuild at a quarter of its documents said "about 0 s left")."""
    s = max(1, round(seconds))
    if s >= 3600:
        return say("duration.hours", h=s // 3600, m=s % 3600 // 60)
    if s >= 60:
        return say("duration.minutes", m=s // 60, s=s % 60)
    return say("duration.seconds", s=s)


def pace_text(info: TaskInfo, say: Say, *, join: str, eta: bool = True) -> str:
    """Chunks (or documents) per second and the time left while running; the average after
    (``3.2 chunks/s, about 1 min 20 s left``); empty when there is no rate to show. Without
    ``eta`` (a total that still grows has no time left) the rate alone, as after."""
    key = "task.rate.vectorize" if info.kind == "vectorize" else "task.rate.other"
    if eta and info.state == "running" and info.total and info.done < info.total:
        if info.rate is None:
            return say("task.estimating")
        left = (
            say("task.eta", left=duration_text(info.eta_seconds, say))
            if info.eta_seconds is not None
            else say("task.stalled")
        )
        return f"{say(key, rate=rate_text(info.rate))}{join}{left}"
    return say(key, rate=rate_text(info.rate)) if info.rate else ""
