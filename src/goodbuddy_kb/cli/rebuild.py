"""`goodbuddy-kb rebuild LIB [--document PATH_OR_ID]`: rebuild a library or one document with
the library's current settings, following the task's progress. Exits non-zero when the rebuild
(or the vector work it queued) failed, left documents failed, or was cancelled; Ctrl-C cancels
the rebuild (already replaced documents stay)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import emit
from goodbuddy_kb.cli.resolve import resolve_document
from goodbuddy_kb.cli.tasks import finish, wait_for_library, wait_for_tasks
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import DOCUMENT_REBUILD, LIBRARY_REBUILD, TASKS_CANCEL
from goodbuddy_kb.contracts.paths import readable_path

EXIT_INTERRUPTED = 130


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "rebuild",
        parents=[common],
        help="re-read, re-chunk and re-index a library (or one document) with its current settings",
    )
    p.add_argument("library", metavar="LIB")
    p.add_argument(
        "--document",
        metavar="PATH_OR_ID",
        help="only this document: its id, its path inside the source, or its file path or URL",
    )


def cmd_rebuild(args: argparse.Namespace, session: Session, library_id: str) -> int:
    quiet = getattr(args, "json", False)
    if args.document:
        doc = resolve_document(session, library_id, args.document)
        task_id = session.client.call(
            DOCUMENT_REBUILD, r.DocumentRebuildRequest(library_id=library_id, document_id=doc.id)
        ).task_id
        if not quiet:
            print(f"rebuilding {readable_path(doc.path)}")
    else:
        task_id = session.client.call(
            LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id)
        ).task_id
    try:
        infos = wait_for_library(session, library_id, [task_id], quiet)
    except KeyboardInterrupt:
        session.client.call(TASKS_CANCEL, t.TaskCancelRequest(task_id=task_id))
        print("\ncancelling… documents already replaced stay available", file=sys.stderr)
        emit(
            args,
            [i.to_wire() for i in wait_for_tasks(session, [task_id], True)],
            "cancelled",
        )
        return EXIT_INTERRUPTED
    status = finish(args, infos)
    rebuilt = [i for i in infos if i.id == task_id]
    return status or (1 if not rebuilt or rebuilt[0].failed_documents else 0)
