"""CLI commands for sources, sync, documents and tasks (`goodbuddy-kb source|sync|documents|tasks`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import InvalidRequestError, TimeoutError_
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    NOTIFY_TASK,
    RETRIEVE,
    SOURCE_ADD,
    SOURCE_LIST,
    SOURCE_REMOVE,
    SOURCE_SYNC,
    TASKS_LIST,
)

BAR = 30


def add_parsers(commands: Any, common: argparse.ArgumentParser) -> None:
    source = commands.add_parser("source", help="add, list or remove sources of a library")
    actions = source.add_subparsers(dest="action", required=True)
    p = actions.add_parser(
        "add", parents=[common], help="add a file, folder or http(s) page and sync it"
    )
    p.add_argument("library", metavar="LIB")
    p.add_argument("location", metavar="PATH|URL")
    p.add_argument("--include", action="append", default=[], metavar="GLOB")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB")
    p.add_argument("--no-watch", action="store_true", help="do not watch a folder for changes")
    p = actions.add_parser("list", parents=[common], help="list a library's sources")
    p.add_argument("library", metavar="LIB")
    p = actions.add_parser("remove", parents=[common], help="remove a source (original files stay)")
    p.add_argument("library", metavar="LIB")
    p.add_argument("source", metavar="SOURCE_ID")
    p = commands.add_parser("sync", parents=[common], help="sync a library's sources now")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--source", metavar="SOURCE_ID")
    p = commands.add_parser("documents", parents=[common], help="documents and their statuses")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--filter", choices=["all", "failed", "vector_missing"], default="all")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--limit", type=int, default=200)
    p = commands.add_parser(
        "retrieve", parents=[common], help="ask a question; show ranked evidence"
    )
    p.add_argument("libraries", metavar="LIB", nargs="+")
    p.add_argument("query", metavar="QUESTION", type=question)
    p.add_argument("--top-k", type=int, default=None)
    p.add_argument("--rerank", choices=["off", "local", "learned"], default=None)
    p = commands.add_parser("tasks", parents=[common], help="recent tasks")
    p.add_argument("library", metavar="LIB", nargs="?")


def question(text: str) -> str:
    """A retrieval question within the product's one query limit (refused before any call)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the question is empty")
    if len(text) > MAX_QUERY_CHARACTERS:
        raise argparse.ArgumentTypeError(
            f"a question has at most {MAX_QUERY_CHARACTERS:,} characters (this one has {len(text):,})"
        )
    return text


def _kind(location: str) -> tuple[c.SourceKind, str]:
    if location.startswith(("http://", "https://")):
        return "web", location
    if not location.strip():
        # Path("") is the current directory: an empty argument must not import it.
        raise InvalidRequestError("a folder, file or http(s) address is required")
    try:
        path = Path(location).expanduser().resolve()
        return ("folder" if path.is_dir() else "file"), str(path)
    except (OSError, RuntimeError, ValueError):
        return "file", location  # the backend says what is wrong with it


def wait_for_tasks(session: Session, task_ids: list[str], quiet: bool) -> list[t.TaskInfo]:
    """Follow task notifications until every task has finished, drawing a progress bar."""
    pending = set(task_ids)
    finished: dict[str, t.TaskInfo] = {}
    tty = sys.stderr.isatty() and not quiet
    for info in session.client.call(TASKS_LIST, t.TaskListRequest(limit=200)).tasks:
        if info.id in pending and info.state in t.FINISHED_STATES:
            finished[info.id] = info
            pending.discard(info.id)
    while pending:
        try:
            method, params = session.client.next_notification(timeout=3600)
        except TimeoutError_:
            break
        if method != NOTIFY_TASK.name:
            continue
        info = t.TaskInfo.model_validate(params)
        if info.id not in pending:
            continue
        if tty and info.total:
            filled = int(BAR * info.done / info.total)
            current = (info.current or "")[-30:]
            pace = pace_text(info)[:40]
            sys.stderr.write(
                f"\r[{'#' * filled}{'-' * (BAR - filled)}] {info.done}/{info.total}"
                f" {pace:<40} {current:<30}"
            )
            sys.stderr.flush()
        if info.state in t.FINISHED_STATES:
            finished[info.id] = info
            pending.discard(info.id)
    if tty:
        sys.stderr.write("\n")
    return [finished[i] for i in task_ids if i in finished]


def wait_for_library(
    session: Session, library_id: str, task_ids: list[str], quiet: bool
) -> list[t.TaskInfo]:
    """Wait for ``task_ids`` and then for the work they queued (vectorisation) in the library,
    so a backend this command started is not closed under it."""
    infos = wait_for_tasks(session, task_ids, quiet)
    while True:
        pending = [
            i.id
            for i in session.client.call(
                TASKS_LIST, t.TaskListRequest(library_id=library_id, limit=20)
            ).tasks
            if i.state in ("queued", "running")
        ]
        if not pending:
            return infos
        infos += wait_for_tasks(session, pending, quiet)


def _summary_text(summary: t.TaskSummary | None) -> str:
    if summary is None:
        return ""
    parts = [f"{summary.succeeded} written"]
    for count, words in (
        (summary.unchanged, "unchanged"),
        (summary.retried, "failed before and retried"),
        (summary.not_started, "not started (kept as they were)"),
    ):
        if count:
            parts.append(f"{count} {words}")
    if summary.settings_applied is not None:
        parts.append(
            "new settings in effect" if summary.settings_applied else "still waiting for rebuild"
        )
    return f" ({', '.join(parts)})"


def duration(seconds: float) -> str:
    """``1 h 05 min``, ``3 min 20 s``, ``45 s``."""
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def pace_text(info: t.TaskInfo) -> str:
    """``3.2 chunks/s, about 1 min 20 s left`` while running; the average once finished."""
    unit = "chunks/s" if info.kind == "vectorize" else "documents/s"
    if info.state == "running" and info.total and info.done < info.total:
        if info.rate is None:
            return "estimating the pace…"
        left = (
            f", about {duration(info.eta_seconds)} left"
            if info.eta_seconds is not None
            else ", stalled"
        )
        return f"{_rate(info.rate)} {unit}{left}"
    return f"{_rate(info.rate)} {unit}" if info.rate else ""


def _rate(rate: float) -> str:
    return f"{rate:.2f}" if rate < 1 else f"{rate:.1f}"


def _task_line(info: t.TaskInfo) -> str:
    failed = f", {info.failed_documents} failed" if info.failed_documents else ""
    error = f": {info.error}" if info.error else ""
    unit = "chunks vectorised" if info.kind == "vectorize" else "documents"
    pace = pace_text(info)
    return (
        f"{info.kind:<10}{info.state:<11} {info.done}/{info.total} {unit}{failed}"
        f"{f' ({pace})' if pace else ''}{_summary_text(info.summary)}{error}"
    )


def emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    """JSON with --json, else the text (every command prints through this)."""
    if getattr(args, "json", False):
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(text)


def finish(args: argparse.Namespace, infos: list[t.TaskInfo]) -> int:
    emit(
        args,
        [i.to_wire() for i in infos],
        "\n".join(_task_line(i) for i in infos) or "nothing to sync",
    )
    return 0 if all(i.state == "completed" for i in infos) else 1


def cmd_source(args: argparse.Namespace, session: Session, library_id: str) -> int:
    call = session.client.call
    if args.action == "add":
        kind, location = _kind(args.location)
        res = call(
            SOURCE_ADD,
            c.SourceAddRequest(
                library_id=library_id,
                kind=kind,
                location=location,
                include=args.include,
                exclude=args.exclude,
                watch=False if args.no_watch else None,
            ),
        )
        if not getattr(args, "json", False):
            print(f"added {res.source.kind} source {res.source.id}: {res.source.location}")
        infos = wait_for_library(
            session, library_id, [res.task_id] if res.task_id else [], getattr(args, "json", False)
        )
        return finish(args, infos)
    if args.action == "list":
        found = call(SOURCE_LIST, c.SourceListRequest(library_id=library_id)).sources
        lines = [
            f"{s.id}  {s.kind:<6} {s.state:<11} {s.document_count:>5} docs  watch={'on' if s.watch else 'off'}  {s.location}"
            + (f"  ({s.state_reason})" if s.state_reason else "")
            for s in found
        ]
        emit(args, [s.to_wire() for s in found], "\n".join(lines) or "no sources yet")
        return 0
    res_remove = call(
        SOURCE_REMOVE, c.SourceRemoveRequest(library_id=library_id, source_id=args.source)
    )
    emit(
        args,
        res_remove.to_wire(),
        f"removed the source and its {res_remove.removed_documents} documents (original files were not touched)",
    )
    return 0


def cmd_sync(args: argparse.Namespace, session: Session, library_id: str) -> int:
    res = session.client.call(
        SOURCE_SYNC, c.SourceSyncRequest(library_id=library_id, source_id=args.source)
    )
    return finish(
        args, wait_for_library(session, library_id, res.task_ids, getattr(args, "json", False))
    )


def cmd_documents(args: argparse.Namespace, session: Session, library_id: str) -> int:
    res = session.client.call(
        DOCUMENTS_LIST,
        c.DocumentListRequest(
            library_id=library_id,
            offset=args.offset,
            limit=min(200, args.limit),
            filter=args.filter,
        ),
    )
    s = res.summary
    header = (
        f"{s.documents} documents: {s.fulltext_usable} usable for full-text, {s.vectorised} vectorised, "
        f"{s.failed} failed, {s.pending} pending"
        + (", settings updated, waiting for rebuild" if s.settings_pending_rebuild else "")
    )
    lines = [header, f"{'parse':<8}{'fulltext':<9}{'vector':<13}{'graph':<10}{'chunks':>6}  path"]
    for d in res.documents:
        st = d.status
        lines.append(
            f"{st.parse:<8}{st.fulltext:<9}{st.vector:<13}{st.graph:<10}{d.chunk_count:>6}  {d.path}"
            + (f"  — {d.error}" if d.error else "")
            + (f"  [{_ocr_note(d.ocr)}]" if d.ocr is not None else "")
        )
    if res.total > args.offset + len(res.documents):
        lines.append(f"… {res.total - args.offset - len(res.documents)} more (use --offset)")
    emit(args, res.to_wire(), "\n".join(lines))
    return 0


def _ocr_note(ocr: c.DocumentOcr) -> str:
    if ocr.status != "done":
        return f"OCR {ocr.status}" + (f": {ocr.reason}" if ocr.reason else "")

    def count(n: int, what: str) -> str:
        return f"{n} {what}" if n == 1 else f"{n} {what}s"

    note = f"text from OCR: {count(ocr.pages, 'page')}, mean confidence {ocr.mean_confidence}"
    if ocr.low_confidence_lines:
        note += f", {count(ocr.low_confidence_lines, 'low-confidence line')}"
    if ocr.skipped_pages:
        note += f", {count(ocr.skipped_pages, 'page')} not recognised"
    return note


def cmd_tasks(args: argparse.Namespace, session: Session, library_id: str | None) -> int:
    infos = session.client.call(TASKS_LIST, t.TaskListRequest(library_id=library_id)).tasks
    lines = [f"{i.created_at[:19]}  {i.kind}  {_task_line(i)}" for i in infos]
    emit(args, [i.to_wire() for i in infos], "\n".join(lines) or "no tasks yet")
    return 0


def cmd_retrieve(args: argparse.Namespace, session: Session, library_ids: list[str]) -> int:
    overrides = r.RetrievalOverrides(top_k=args.top_k) if args.top_k is not None else None
    res = session.client.call(
        RETRIEVE,
        r.RetrieveRequest(
            library_ids=library_ids, query=args.query, overrides=overrides, rerank=args.rerank
        ),
    )
    if getattr(args, "json", False):
        print(json.dumps(res.to_wire(), ensure_ascii=False, indent=2))
        return 0
    d = res.diagnostics
    print(
        f"{len(res.results)} results in {res.duration_ms:.0f} ms; channels used: {', '.join(d.used_channels) or 'none'}"
    )
    for degraded in d.degraded_channels:
        print(f"  degraded {degraded.channel}: {degraded.reason}")
    if d.rerank.fallback_reason:
        print(f"  rerank fell back to {d.rerank.applied}: {d.rerank.fallback_reason}")
    confidence = ", ".join(f"{k} {v:.2f}" for k, v in d.channel_confidence.items()) or "none"
    best = f"{d.best_relevance:.2f}" if d.best_relevance is not None else "none"
    print(
        f"  fusion {d.fusion}; channel confidence: {confidence}; minimum relevance"
        f" {d.minimum_relevance:g}, best {best}"
        + (f", {d.below_minimum_relevance} withheld" if d.below_minimum_relevance else "")
    )
    for x in res.results:
        ranks = " ".join(f"{k}#{v}" for k, v in sorted(x.channel_ranks.items()))
        sim = f" sim {x.vector_similarity:.3f}" if x.vector_similarity is not None else ""
        print(
            f"{x.rank:>2}. {x.relevance:.3f}  [{ranks}{sim}; before rerank #{x.pre_rerank_rank}]  {x.document_path}"
        )
        print(f"    {x.snippet}")
    if res.zero_result:
        print(
            f"No results ({res.zero_result.reason}): {res.zero_result.message}\nNext: {res.zero_result.next_step}"
        )
    c = res.context
    print(
        f"\ncontext: {c.character_count}/{c.budget} characters{' (truncated)' if c.truncated else ''}"
    )
    for g in c.groups:
        print(
            f"--- {g.document_title} ({len(g.chunk_ids)} chunks{', truncated' if g.truncated else ''})"
        )
        print(g.text)
    return 0
