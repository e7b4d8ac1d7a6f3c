"""CLI commands for a library's sources and documents (`goodbuddy-kb source|sync|documents`): add,
list and remove sources, sync them now (following the tasks), and the documents' staged statuses."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import emit, noun, plural
from goodbuddy_kb.cli.resolve import resolve_source
from goodbuddy_kb.cli.tasks import finish, wait_for_library
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.formats import READABLE_SUFFIXES
from goodbuddy_kb.contracts.methods import (
    DOCUMENTS_LIST,
    SOURCE_ADD,
    SOURCE_LIST,
    SOURCE_REMOVE,
    SOURCE_SYNC,
)
from goodbuddy_kb.contracts.paths import readable_path, wire_path


def add_parsers(commands: Any, common: argparse.ArgumentParser) -> None:
    source = commands.add_parser("source", help="add, list or remove sources of a library")
    actions = source.add_subparsers(dest="action", required=True)
    p = actions.add_parser(
        "add",
        parents=[common],
        help=f"add a file, folder (at most {c.MAX_FILES_PER_SOURCE:,} files are imported) or"
        " http(s) page and sync it",
    )
    p.add_argument("library", metavar="LIB")
    p.add_argument("location", metavar="PATH|URL")
    p.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="import only files matching GLOB (e.g. '*.md'); repeat for more",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out files matching GLOB (e.g. 'drafts/**'); repeat for more",
    )
    p.add_argument("--no-watch", action="store_true", help="do not watch a folder for changes")
    p = actions.add_parser("list", parents=[common], help="list a library's sources")
    p.add_argument("library", metavar="LIB")
    p = actions.add_parser("remove", parents=[common], help="remove a source (original files stay)")
    p.add_argument("library", metavar="LIB")
    p.add_argument(
        "source", metavar="SOURCE", help="source id (or 6+ characters of it), path or address"
    )
    p = commands.add_parser("sync", parents=[common], help="sync a library's sources now")
    p.add_argument("library", metavar="LIB")
    p.add_argument(
        "--source",
        metavar="SOURCE",
        help="only this source: id (or 6+ characters), path or address",
    )
    p = commands.add_parser("documents", parents=[common], help="documents and their statuses")
    p.add_argument("library", metavar="LIB")
    p.add_argument(
        "--filter",
        choices=["all", "failed", "vector_missing"],
        default="all",
        help="all documents, those that failed, or those still without vectors",
    )
    p.add_argument("--offset", type=int, default=0, help="skip this many documents first")
    p.add_argument("--limit", type=int, default=200, help="list at most this many (1–200)")


def _kind(location: str) -> tuple[c.SourceKind, str]:
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", location):
        # another scheme (ftp://) is an address the backend refuses as one, not a missing file
        return "web", location
    if not location.strip():
        # Path("") is the current directory: an empty argument must not import it.
        raise InvalidRequestError("a folder, file or http(s) address is required")
    try:
        path = Path(location).expanduser().resolve()
        return ("folder" if path.is_dir() else "file"), wire_path(str(path))
    except (OSError, RuntimeError, ValueError):
        return "file", wire_path(location)  # the backend says what is wrong with it


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
            print(
                f"added {res.source.kind} source {res.source.id}: {readable_path(res.source.location)}"
            )
        infos = wait_for_library(
            session, library_id, [res.task_id] if res.task_id else [], getattr(args, "json", False)
        )
        status = finish(args, infos)
        synced = [i for i in infos if i.id == res.task_id and i.state == "completed"]
        if kind == "folder" and synced and not synced[0].total:
            # "sync completed 0/0 documents" alone left a pattern that matched nothing unsaid
            patterns = (
                " with these --include/--exclude patterns" if args.include or args.exclude else ""
            )
            print(
                f"note: nothing in this folder is a file the app reads{patterns}"
                f" ({' '.join(READABLE_SUFFIXES)}; hidden files are skipped)",
                file=sys.stderr,
            )
        return status
    if args.action == "list":
        found = call(SOURCE_LIST, c.SourceListRequest(library_id=library_id)).sources
        lines = [
            f"{s.id}  {s.kind:<6} {s.state:<11} {s.document_count:>5} {noun(s.document_count, 'doc')}  watch={'on' if s.watch else 'off'}  {readable_path(s.location)}"
            + (f"  ({s.state_reason})" if s.state_reason else "")
            for s in found
        ]
        emit(args, [s.to_wire() for s in found], "\n".join(lines) or "no sources yet")
        return 0
    source_id = resolve_source(session, library_id, args.source).id
    res_remove = call(
        SOURCE_REMOVE, c.SourceRemoveRequest(library_id=library_id, source_id=source_id)
    )
    emit(
        args,
        res_remove.to_wire(),
        f"removed the source and its {res_remove.removed_documents} documents (original files were not touched)",
    )
    return 0


def cmd_sync(args: argparse.Namespace, session: Session, library_id: str) -> int:
    source_id = resolve_source(session, library_id, args.source).id if args.source else None
    res = session.client.call(
        SOURCE_SYNC, c.SourceSyncRequest(library_id=library_id, source_id=source_id)
    )
    infos = wait_for_library(session, library_id, res.task_ids, getattr(args, "json", False))
    listed = session.client.call(SOURCE_LIST, c.SourceListRequest(library_id=library_id)).sources
    places = {x.id: readable_path(x.location) for x in listed} if len(listed) > 1 else {}
    return finish(args, infos, places)


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
        + (
            f", {s.vector_cancelled} not vectorised: cancelled (sync continues)"
            if s.vector_cancelled
            else ""
        )
        + (
            f", {s.waiting_vector_rebuild} with vectors of another model (no semantic search"
            " until the vectors are rebuilt)"
            if s.waiting_vector_rebuild
            else ""
        )
        + (", settings updated, waiting for rebuild" if s.settings_pending_rebuild else "")
        + (
            f"; {plural(s.not_imported, 'more file')} not imported: past a source's"
            f" {c.MAX_FILES_PER_SOURCE:,}-file limit (add its subfolders as separate sources)"
            if s.not_imported
            else ""
        )
        + (
            f" ({plural(s.kept_old_chunks, 'document')} kept on the old chunking for manual work:"
            f" rebuild --discard-edits to apply the settings to {'it' if s.kept_old_chunks == 1 else 'them'})"
            if s.kept_old_chunks
            else ""
        )
    )
    lines = [
        header,
        f"{'parse':<8}{'fulltext':<9}{'vector':<13}{'graph':<10}{'entities':>8}{'chunks':>7}  path",
    ]
    for d in res.documents:
        st = d.status
        # what the graph found in it ("done" alone reads the same for a document with no names)
        entities = str(d.graph_entities) if st.graph == "done" else "-"
        lines.append(
            f"{st.parse:<8}{st.fulltext:<9}{st.vector:<13}{st.graph:<10}{entities:>8}"
            f"{d.chunk_count:>7}  {readable_path(d.path)}"
            + (f"  (attachment of {readable_path(d.message_path)})" if d.message_path else "")
            + (f"  — {d.error}" if d.error else "")
            + (f"  (note: {d.note})" if d.note and not d.error else "")
            + (f"  [{_ocr_note(d.ocr)}]" if d.ocr is not None else "")
            + ("  [old chunking kept for manual work]" if d.kept_old_chunks else "")
        )
    if not res.documents:
        # under the header alone it read as if the listing had failed
        lines[1:] = [
            {
                "failed": "no failed documents",
                "vector_missing": "every document has its vectors",
            }.get(args.filter, "no documents yet")
            if args.offset == 0
            else f"no documents past the first {args.offset}"
        ]
    if res.total > args.offset + len(res.documents):
        more = res.total - args.offset - len(res.documents)
        capped = " (200 at a time)" if args.limit > 200 else ""
        lines.append(f"… {more} more{capped} (use --offset)")
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
