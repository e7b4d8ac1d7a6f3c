"""`goodbuddy-kb rebuild LIB [--document PATH_OR_ID] [--discard-edits]`: rebuild a library or
one document with the library's current settings, following the task's progress. ``--vectors``
makes only the library's vectors again, with the embedding model set up now (after a change of
model: the chunks and manual work stay as they are). Exits non-zero
when the rebuild (or the vector work it queued) failed, left documents failed, or was cancelled;
Ctrl-C cancels the rebuild (already replaced documents stay). Exits 3 when it skipped documents
to keep their manual work: the library's new settings do not yet apply to them, and a script
must be able to tell that from a rebuild that applied them everywhere.

Before it starts it says which documents hold manual chunk work (edited, disabled, deleted
chunks). That work is carried over where the new chunking keeps its text; a document where it
cannot be is skipped unless ``--discard-edits`` is given, which rebuilds it too and drops the
work the new chunking cannot keep. The end says what was carried over, skipped and
discarded."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import EXIT_INTERRUPTED, EXIT_PARTIAL, emit
from goodbuddy_kb.cli.resolve import resolve_document
from goodbuddy_kb.cli.tasks import finish, wait_for_library, wait_for_tasks
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import (
    DOCUMENT_REBUILD,
    EMBEDDING_GET,
    LIBRARY_REBUILD,
    REBUILD_PREVIEW,
    TASKS_CANCEL,
    VECTORS_REBUILD,
)
from goodbuddy_kb.contracts.paths import readable_path


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
    p.add_argument(
        "--vectors",
        action="store_true",
        help="only make the library's vectors again, with the embedding model set up now",
    )
    p.add_argument(
        "--discard-edits",
        action="store_true",
        help="rebuild every document, discarding the manual chunk work (edited, disabled or"
        " deleted chunks) the new chunking cannot keep; the work it can keep is carried over"
        " either way. Without it, documents whose work cannot be kept are skipped, and the"
        " command exits 3 (the new settings do not yet apply to them)",
    )


def cmd_rebuild(args: argparse.Namespace, session: Session, library_id: str) -> int:
    quiet = getattr(args, "json", False)
    if args.vectors:
        if args.document or args.discard_edits:
            raise InvalidRequestError("--vectors: rebuilds the whole library's vectors only")
        embedding = session.client.call(EMBEDDING_GET, m.EmbeddingGetRequest())
        if embedding.connection.kind == "none":  # the task would fail "0/0 chunks"
            raise InvalidRequestError(
                "--vectors: no embedding model is set up to make them (`goodbuddy-kb model"
                " embedding --provider local` sets up the bundled one)"
            )
        task_id = session.client.call(
            VECTORS_REBUILD, m.VectorRebuildRequest(library_id=library_id)
        ).task_id
        return finish(args, wait_for_library(session, library_id, [task_id], quiet))
    choice: r.ManualWorkChoice = "discard" if args.discard_edits else "skip"
    doc = resolve_document(session, library_id, args.document) if args.document else None
    preview = session.client.call(
        REBUILD_PREVIEW,
        r.RebuildPreviewRequest(library_id=library_id, document_id=doc.id if doc else None),
    )
    if not quiet and preview.total.total:
        print(preview_text(preview, choice))
    if doc is not None:
        task_id = session.client.call(
            DOCUMENT_REBUILD,
            r.DocumentRebuildRequest(library_id=library_id, document_id=doc.id, manual_work=choice),
        ).task_id
        if not quiet:
            print(f"rebuilding {readable_path(doc.path)}")
    else:
        task_id = session.client.call(
            LIBRARY_REBUILD, r.LibraryRebuildRequest(library_id=library_id, manual_work=choice)
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
    summary = rebuilt[0].summary if rebuilt else None
    if not quiet and summary is not None and summary.manual_work is not None:
        print(outcome_text(summary.manual_work))
    if status or not rebuilt or rebuilt[0].failed_documents:
        return status or 1
    work = summary.manual_work if summary is not None else None
    return EXIT_PARTIAL if work is not None and work.skipped_documents else 0


def _counts(counts: r.ManualWorkCounts) -> str:
    parts = [
        f"{n} {word}"
        for n, word in (
            (counts.edited, "edited"),
            (counts.disabled, "disabled"),
            (counts.deleted, "deleted"),
        )
        if n
    ]
    return ", ".join(parts) or "none"


def preview_text(preview: r.RebuildPreviewResponse, choice: r.ManualWorkChoice) -> str:
    """What the rebuild may discard, per document, and what it will do about it."""
    count = len(preview.documents) + preview.more_documents
    lines = [
        f"manual chunk work in {count} document{'s' if count != 1 else ''}"
        f" ({_counts(preview.total)}):"
    ]
    lines += [f"  {readable_path(d.path)}: {_counts(d.counts)}" for d in preview.documents]
    if preview.more_documents:
        lines.append(f"  … and {preview.more_documents} more")
    lines.append("where the new chunks keep a chunk's text, its state is carried over;")
    lines.append(
        "documents where it cannot be are skipped (pass --discard-edits to rebuild them"
        " and discard that work)"
        if choice == "skip"
        else "--discard-edits: documents where it cannot be are rebuilt and that work is discarded"
    )
    return "\n".join(lines)


def outcome_text(work: r.ManualWorkOutcome) -> str:
    """What the rebuild did with the manual chunk work."""
    lines = []
    if work.carried.total:
        lines.append(f"manual work carried over: {_counts(work.carried)}")
    if work.skipped_documents:
        lines.append(
            f"skipped {work.skipped_documents} document"
            f"{'s' if work.skipped_documents != 1 else ''} to keep manual work"
            f" ({_counts(work.kept)}); rerun with --discard-edits to rebuild them:"
        )
        lines += [f"  {readable_path(p)}" for p in work.skipped_paths]
    if work.discarded.total:
        lines.append(f"manual work discarded: {_counts(work.discarded)}")
        lines += [f"  {readable_path(p)}" for p in work.discarded_paths]
    return "\n".join(lines)
