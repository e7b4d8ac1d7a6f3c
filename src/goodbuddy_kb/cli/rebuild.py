"""`goodbuddy-kb rebuild LIB [--document PATH_OR_ID]`: rebuild a library or one document with
the library's current settings, following the task's progress. Exits non-zero when the rebuild
(or the vector work it queued) failed, left documents failed, or was cancelled; Ctrl-C cancels
the rebuild (already replaced documents stay)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli import sources as cli_sources
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import NotFoundError
from goodbuddy_kb.contracts.limits import MAX_CHUNKS_PER_PAGE
from goodbuddy_kb.contracts.methods import (
    DOCUMENT_REBUILD,
    DOCUMENTS_LIST,
    LIBRARY_REBUILD,
    SOURCE_LIST,
    TASKS_CANCEL,
)

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


def _all_documents(session: Session, library_id: str) -> list[c.Document]:
    found: list[c.Document] = []
    while True:
        page = session.client.call(
            DOCUMENTS_LIST,
            c.DocumentListRequest(
                library_id=library_id, offset=len(found), limit=MAX_CHUNKS_PER_PAGE
            ),
        )
        found += page.documents
        if not page.documents or len(found) >= page.total:
            return found


def resolve_document(session: Session, library_id: str, ref: str) -> c.Document:
    """A document by id, by its path inside its source, or by its full file path or URL."""
    docs = _all_documents(session, library_id)
    by_id = [d for d in docs if d.id == ref]
    if by_id:
        return by_id[0]
    wanted: set[tuple[str | None, str]] = {(None, ref)}
    for source in session.client.call(
        SOURCE_LIST, c.SourceListRequest(library_id=library_id)
    ).sources:
        if source.kind == "web" and ref == source.location:
            wanted.add((source.id, source.location))
            continue
        full = Path(ref).expanduser()
        if not full.is_absolute():
            continue
        location = Path(source.location)
        if source.kind == "file" and full == location:
            wanted.add((source.id, location.name))
        elif source.kind == "folder" and full.is_relative_to(location):
            wanted.add((source.id, full.relative_to(location).as_posix()))
    matches = [d for d in docs if (d.source_id, d.path) in wanted or (None, d.path) in wanted]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise NotFoundError(
            f"“{ref}” names {len(matches)} documents (in different sources); use the document id"
        )
    raise NotFoundError(f"no document with id or path “{ref}” in this library")


def cmd_rebuild(args: argparse.Namespace, session: Session, library_id: str) -> int:
    quiet = getattr(args, "json", False)
    if args.document:
        doc = resolve_document(session, library_id, args.document)
        task_id = session.client.call(
            DOCUMENT_REBUILD, r.DocumentRebuildRequest(library_id=library_id, document_id=doc.id)
        ).task_id
        if not quiet:
            print(f"rebuilding {doc.path}")
    else:
        task_id = session.client.call(
            LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id)
        ).task_id
    try:
        infos = cli_sources.wait_for_library(session, library_id, [task_id], quiet)
    except KeyboardInterrupt:
        session.client.call(TASKS_CANCEL, t.TaskCancelRequest(task_id=task_id))
        print("\ncancelling… documents already replaced stay available", file=sys.stderr)
        cli_sources.emit(
            args,
            [i.to_wire() for i in cli_sources.wait_for_tasks(session, [task_id], True)],
            "cancelled",
        )
        return EXIT_INTERRUPTED
    status = cli_sources.finish(args, infos)
    rebuilt = [i for i in infos if i.id == task_id]
    return status or (1 if not rebuilt or rebuilt[0].failed_documents else 0)
