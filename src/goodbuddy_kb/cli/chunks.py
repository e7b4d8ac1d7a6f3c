"""`goodbuddy-kb chunks LIB DOC` and `goodbuddy-kb chunk show|edit|enable|disable|delete`:
chunk maintenance from the command line (DOC: a document id or path as for `rebuild`; CHUNK: a
chunk id or an unambiguous prefix of at least 6 characters, as `chunks` prints them)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import confirm, emit, plural
from goodbuddy_kb.cli.resolve import MIN_PREFIX, resolve_document
from goodbuddy_kb.cli.tasks import wait_for_library
from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts.errors import InvalidRequestError, NotFoundError
from goodbuddy_kb.contracts.limits import MAX_CHUNKS_PER_PAGE
from goodbuddy_kb.contracts.methods import (
    CHUNK_DELETE,
    CHUNK_GET,
    CHUNK_UPDATE,
    CHUNKS_DISMISS_REPLACED,
    CHUNKS_LIST,
)
from goodbuddy_kb.contracts.paths import readable_path

OVERWRITE_NOTE = (
    "note: a re-sync after the source file changes re-creates the chunks of the changed text"
    " and overwrites manual changes to them; a rebuild keeps them or skips the document"
    " (unless run with --discard-edits)"
)


def add_parsers(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser("chunks", parents=[common], help="list a document's chunks")
    p.add_argument("library", metavar="LIB")
    p.add_argument("document", metavar="DOC", help="document id or path")
    p.add_argument("--search", metavar="TEXT", help="only chunks containing TEXT")
    p.add_argument("--role", choices=["standalone", "parent", "child"])
    p.add_argument(
        "--dismiss-replaced",
        action="store_true",
        help="forget the edits of yours that new chunk text replaced (a sync of a changed file,"
        " a rebuild told to discard; listed until then)",
    )
    chunk = commands.add_parser("chunk", help="show, edit, enable, disable or delete one chunk")
    actions = chunk.add_subparsers(dest="action", required=True)
    for name, text in (
        ("show", "print a chunk's full content"),
        ("edit", "replace a chunk's content (a manual edit)"),
        ("enable", "let a chunk take part in retrieval again"),
        ("disable", "keep a chunk out of every retrieval channel"),
        ("delete", "delete a chunk from every index (the original file stays)"),
    ):
        a = actions.add_parser(name, parents=[common], help=text)
        a.add_argument("library", metavar="LIB")
        a.add_argument("document", metavar="DOC", help="document id or path")
        a.add_argument("chunk", metavar="CHUNK", help="chunk id or a unique prefix of it")
        if name == "edit":
            source = a.add_mutually_exclusive_group(required=True)
            source.add_argument("--content", metavar="TEXT")
            source.add_argument(
                "--file", metavar="PATH", help="read the content from PATH (- = stdin)"
            )
        if name == "delete":
            a.add_argument("--yes", action="store_true", help="do not ask")


def _pages(
    session: Session, library_id: str, document_id: str, **filters: Any
) -> tuple[list[k.ChunkSummary], list[k.ReplacedEdit]]:
    """Every chunk the filters let through, page by page, and the document's replaced edits
    (each page carries them)."""
    found: list[k.ChunkSummary] = []
    cursor: str | None = None
    while True:
        page = session.client.call(
            CHUNKS_LIST,
            k.ChunksListRequest(
                library_id=library_id,
                document_id=document_id,
                cursor=cursor,
                limit=MAX_CHUNKS_PER_PAGE,
                **filters,
            ),
        )
        found += page.chunks
        cursor = page.next_cursor
        if cursor is None:
            return found, page.replaced


def _line(chunk: k.ChunkSummary) -> str:
    role: str = chunk.role
    if chunk.role == "child" and chunk.parent_ordinal is not None:
        role = f"child of parent #{chunk.parent_number}"
    elif chunk.role == "parent":
        role = f"parent of {chunk.child_count}"
    marks = ("on " if chunk.enabled else "OFF") + (" edited" if chunk.manually_edited else "")
    heading = " > ".join(chunk.heading_path)
    return (
        f"{chunk.id[:12]}  #{chunk.number:<4} {role:<20} {chunk.character_count:>6} chars"
        f"  {marks:<10}  {heading}\n    {chunk.preview}"
    )


def cmd_chunks(args: argparse.Namespace, session: Session, library_id: str) -> int:
    doc = resolve_document(session, library_id, args.document)
    if args.dismiss_replaced:
        ids = k.ReplacedDismissRequest(library_id=library_id, document_id=doc.id)
        gone = session.client.call(CHUNKS_DISMISS_REPLACED, ids).dismissed
        emit(args, {"dismissed": gone}, f"dismissed {plural(gone, 'replaced edit')}")
        return 0
    chunks, edits = _pages(session, library_id, doc.id, search=args.search or None, role=args.role)
    payload = {
        "document": doc.to_wire(),
        "chunks": [c.to_wire() for c in chunks],
        "replaced": [e.to_wire() for e in edits],
    }
    off = sum(1 for c in chunks if not c.enabled)
    # the switched-off ones said apart: `documents` counts only those searched
    header = (
        f"{readable_path(doc.path)}: {plural(len(chunks), 'chunk')}"
        + (f" containing “{args.search}”" if args.search else "")
        + (f" ({off} switched off)" if off else "")
    )
    replaced = [
        f"{plural(len(edits), 'edit')} of yours replaced by new chunk text"
        " (kept until `chunks --dismiss-replaced`):",
        *(f"  [{e.replaced_at[:16]}] {e.content}" for e in edits),
    ]
    lines = [header, *(_line(c) for c in chunks), *(replaced if edits else [])]
    emit(args, payload, "\n".join(lines))
    return 0


def _resolve_chunk(session: Session, library_id: str, document_id: str, ref: str) -> str:
    ref = ref.strip().lower()
    if len(ref) == 32:
        return ref
    if len(ref) < MIN_PREFIX:
        raise InvalidRequestError(f"give the chunk id or at least {MIN_PREFIX} characters of it")
    chunks, _edits = _pages(session, library_id, document_id)
    matches = [c.id for c in chunks if c.id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise InvalidRequestError(f"“{ref}” starts {len(matches)} chunk ids; give more of it")
    raise NotFoundError(f"no chunk starting with “{ref}” in this document")


def _content(args: argparse.Namespace) -> str:
    if args.content is not None:
        return str(args.content)
    if args.file == "-":
        return sys.stdin.read()
    return Path(args.file).expanduser().read_text(encoding="utf-8")


def cmd_chunk(args: argparse.Namespace, session: Session, library_id: str) -> int:
    doc = resolve_document(session, library_id, args.document)
    chunk_id = _resolve_chunk(session, library_id, doc.id, args.chunk)
    ref = k.ChunkRequest(library_id=library_id, document_id=doc.id, chunk_id=chunk_id)
    if args.action == "show":
        detail = session.client.call(CHUNK_GET, ref)
        emit(args, detail.to_wire(), f"{_line(detail.chunk)}\n\n{detail.content}")
        return 0
    if args.action == "delete":
        detail = session.client.call(CHUNK_GET, ref)
        if not args.yes and not _confirm(detail.chunk):
            return 1
        gone = session.client.call(CHUNK_DELETE, ref)
        text = f"deleted chunk #{detail.chunk.number} of {doc.path} (the file was not touched)"
        if gone.detached_children:
            text += f"; its {gone.detached_children} children now stand alone, without its context"
        if gone.document.retrievable_chunks == 0:
            text += "\nthe document has no retrievable content left"
        emit(args, gone.to_wire(), text)
        print(OVERWRITE_NOTE, file=sys.stderr)
        _follow_up(args, session, library_id)
        return 0
    content = _content(args) if args.action == "edit" else None
    enabled = None if args.action == "edit" else args.action == "enable"
    request = k.ChunkUpdateRequest(
        library_id=library_id,
        document_id=doc.id,
        chunk_id=chunk_id,
        content=content,
        enabled=enabled,
    )
    result = session.client.call(CHUNK_UPDATE, request)
    verb = {"edit": "edited", "enable": "enabled", "disable": "disabled"}[args.action]
    vector = {
        "queued": "its vector is being rebuilt",
        "not_needed": "no vector work needed",
        "no_model": "no embedding model is configured",
        "waiting_for_index": "the vector index is still being built",
        "incompatible": "the vector index needs a rebuild for the current model",
    }[result.vector]
    text = f"{verb} chunk #{result.chunk.number} of {doc.path}; {vector}"
    if result.document.retrievable_chunks == 0:
        text += "\nthe document has no retrievable content left"
    emit(args, result.to_wire(), text)
    if args.action == "edit":
        print(OVERWRITE_NOTE, file=sys.stderr)
    _follow_up(args, session, library_id)
    return 0


def _follow_up(args: argparse.Namespace, session: Session, library_id: str) -> None:
    """The work a change queued (the chunk's vector, the document's graph) finishes before a
    backend this command started closes: closing cancelled it ("graph cancelled: the app is
    closing") and left the document waiting for its graph. A backend the window runs carries
    on by itself."""
    if session.process is not None:
        wait_for_library(session, library_id, [], getattr(args, "json", False))


def _confirm(chunk: k.ChunkSummary) -> bool:
    return confirm(f"delete chunk #{chunk.number}? [y/N] ", f"{_line(chunk)}\n{OVERWRITE_NOTE}")
