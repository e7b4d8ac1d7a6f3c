"""Tasks from the command line: `goodbuddy-kb tasks [LIB]`, the progress bar on stderr while a
command waits for its tasks, and the one-line account of each task (state, counts, pace,
summary) with the exit status it gives."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from goodbuddy_kb.bridge import waiting
from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import emit, noun, plural
from goodbuddy_kb.contracts import pace
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.library import LibraryListRequest
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.contracts.methods import LIBRARY_LIST, TASKS_LIST
from goodbuddy_kb.contracts.sources import MAX_FILES_PER_SOURCE

BAR = 30
#: The CLI's words for a pace (see `contracts.pace`); English only.
WORDS = {
    "task.rate.vectorize": "{rate} chunks/s",
    "task.rate.other": "{rate} documents/s",
    "task.estimating": "estimating the pace…",
    "task.eta": "about {left} left",
    "task.stalled": "stalled",
    "duration.hours": "{h} h {m:02d} min",
    "duration.minutes": "{m} min {s:02d} s",
    "duration.seconds": "{s} s",
}


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser("tasks", parents=[common], help="recent tasks")
    p.add_argument("library", metavar="LIB", nargs="?")


def say(key: str, **values: object) -> str:
    return WORDS[key].format(**values)


def pace_text(info: t.TaskInfo) -> str:
    """``3.2 chunks/s, about 1 min 20 s left`` while running; the average once finished."""
    return pace.pace_text(info, say, join=", ")


class ProgressBar:
    """``[#####-----] 12/40 pace current-file`` redrawn in place on a terminal's stderr."""

    def show(self, info: t.TaskInfo) -> None:
        if not info.total:
            return
        filled = int(BAR * info.done / info.total)
        current = (info.current or "")[-30:]
        text = pace_text(info)[:40]
        sys.stderr.write(
            f"\r[{'#' * filled}{'-' * (BAR - filled)}] {info.done}/{info.total}"
            f" {text:<40} {current:<30}"
        )
        sys.stderr.flush()

    def end(self) -> None:
        sys.stderr.write("\n")


def _bar(quiet: bool) -> ProgressBar | None:
    return ProgressBar() if sys.stderr.isatty() and not quiet else None


def wait_for_tasks(session: Session, task_ids: list[str], quiet: bool) -> list[t.TaskInfo]:
    """Follow the tasks until they finish, drawing a progress bar on a terminal."""
    return waiting.wait_for_tasks(session, task_ids, _bar(quiet))


def wait_for_library(
    session: Session, library_id: str, task_ids: list[str], quiet: bool
) -> list[t.TaskInfo]:
    """The tasks and the work they queued in the library, drawing a progress bar."""
    return waiting.wait_for_library(session, library_id, task_ids, _bar(quiet))


def _summary_text(summary: t.TaskSummary | None) -> str:
    if summary is None:
        return ""
    graph = summary.graph
    # a graph run writes entities and relations, not documents
    parts = (
        [
            f"{plural(graph.chunks, 'chunk')} read, {plural(graph.entities, 'entity mention')},"
            f" {plural(graph.relations, 'relation mention')}"
            + (
                f"; the graph now holds {plural(graph.total_entities, 'entity', 'entities')}"
                f" and {plural(graph.total_relations or 0, 'relation')}"
                if graph.total_entities is not None
                else ""
            )
        ]
        if graph is not None
        else [f"{summary.succeeded} written"]
    )
    for count, words in (
        (summary.unchanged, "unchanged"),
        (summary.retried, "failed before and retried"),
        (summary.not_started, "not started (kept as they were)"),
        (summary.removed, "removed (the file or page is gone)"),
    ):
        if count:
            parts.append(f"{count} {words}")
    if summary.overflow:
        parts.append(
            english(
                "source.overflow", {"count": summary.overflow, "limit": f"{MAX_FILES_PER_SOURCE:,}"}
            )
        )
    work = summary.manual_work
    if work is not None and work.carried.total:
        parts.append(f"manual work on {plural(work.carried.total, 'chunk')} carried over")
    if work is not None and work.skipped_documents:
        parts.append(f"{work.skipped_documents} skipped to keep manual chunk work")
    if work is not None and work.discarded.total:
        where = f" in {', '.join(work.discarded_paths)}" if work.discarded_paths else ""
        parts.append(f"manual work on {plural(work.discarded.total, 'chunk')} discarded{where}")
    if summary.settings_applied is not None:
        skipped = work is not None and work.skipped_documents > 0
        parts.append(
            "new settings in effect"
            if summary.settings_applied
            else "new settings not yet applied to the skipped documents"
            if skipped
            else "still waiting for rebuild"
        )
    return f" ({', '.join(parts)})"


def _task_line(info: t.TaskInfo) -> str:
    failed = f", {info.failed_documents} failed" if info.failed_documents else ""
    error = f": {info.error}" if info.error else ""
    unit = "chunks vectorised" if info.kind == "vectorize" else noun(info.total, "document")
    speed = pace_text(info)
    return (
        f"{info.kind:<10}{info.state:<11} {info.done}/{info.total} {unit}{failed}"
        f"{f' ({speed})' if speed else ''}{_summary_text(info.summary)}{error}"
    )


def cmd_tasks(args: argparse.Namespace, session: Session, library_id: str | None) -> int:
    infos = session.client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id)).tasks
    # each task's library when they are not all one library's (the kind was said twice,
    # "graph  graph  completed", and the library not at all)
    names = (
        {x.id: x.name for x in session.client.call(LIBRARY_LIST, LibraryListRequest()).libraries}
        if library_id is None
        else {}
    )
    lines = [
        f"{i.created_at[:19]}  "
        + (f"{names.get(i.library_id or '', '—')}  " if library_id is None else "")
        + _task_line(i)
        for i in infos
    ]
    emit(args, [i.to_wire() for i in infos], "\n".join(lines) or "no tasks yet")
    return 0


def finish(
    args: argparse.Namespace, infos: list[t.TaskInfo], places: dict[str, str] | None = None
) -> int:
    """Print the waited-for tasks; 0 when every one completed. ``places``: source id → where it
    reads from, to say which source each sync was (several sources printed lines alike)."""

    def line(info: t.TaskInfo) -> str:
        place = (places or {}).get(info.source_id or "")
        return _task_line(info) + (f"  [{place}]" if place else "")

    emit(args, [i.to_wire() for i in infos], "\n".join(map(line, infos)) or "nothing to sync")
    return 0 if all(i.state == "completed" for i in infos) else 1
