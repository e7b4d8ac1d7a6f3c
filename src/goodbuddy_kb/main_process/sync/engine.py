"""Incremental sync of one source by content checksum.

Unchanged files are not parsed, chunked or indexed again; changed files are, and so are files
whose last read or parse failed (retried even when their checksum did not change); files gone
from disk lose their documents and every index row. A message (EML, MBOX) that is read brings
its attachments along as documents of the source (``sync/attachments.py``): each checked by its
own checksum, the ones it no longer carries removed; an unchanged message leaves them alone,
and a message gone from disk takes them with it. A known document that now fails to read or
parse keeps its previous generation serving, with a retryable error. Every file of the source takes part (up to
2,000; past that the source says so). Each document is written in one transaction, so a
cancelled sync leaves every document either fully old or fully new.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath

from goodbuddy_kb.contracts.library import LibrarySettings
from goodbuddy_kb.contracts.paths import (
    attachment_name,
    attachment_path,
    message_of,
    os_path,
    wire_path,
)
from goodbuddy_kb.contracts.sources import MAX_FILES_PER_SOURCE, SourceState
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking import ChunkDraft, chunk_document
from goodbuddy_kb.main_process.chunking.carryover import Tally, plus
from goodbuddy_kb.main_process.ocr.stage import OCR_OFF_REASON
from goodbuddy_kb.main_process.parsing import (
    INHERENT_FAILURES,
    ParsedDocument,
    ParseError,
    limits,
    parse,
)
from goodbuddy_kb.main_process.parsing.model import Attachment
from goodbuddy_kb.main_process.storage import documents, libraries, reading, sources
from goodbuddy_kb.main_process.storage.chunks import ReplaceStats
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync import attachments, web_auth
from goodbuddy_kb.main_process.sync.folder import list_folder
from goodbuddy_kb.main_process.sync.reading import UnsafePath, read_inside, still_inside
from goodbuddy_kb.main_process.sync.web import PARSER_BY_TYPE, fetch

Progress = Callable[[int, int, str | None, int], None]


@dataclass
class SyncReport:
    total: int = 0
    processed: int = 0
    unchanged: int = 0
    retried: int = 0
    failed: int = 0
    removed: int = 0
    overflow: int = 0
    unavailable: str | None = None
    #: Documents left for the OCR stage (scanned PDF pages, images).
    ocr_pending: int = 0
    parsed_paths: list[str] = field(default_factory=list)
    #: A person's chunk work in changed files: kept where the text stayed, dropped where the
    #: file's own text changed (the chunk views warn that a re-sync does this).
    manual_carried: Tally = field(default_factory=Tally)
    manual_lost: Tally = field(default_factory=Tally)
    #: The documents whose manual work was dropped, for the summary to name them.
    manual_lost_paths: list[str] = field(default_factory=list)

    def add(self, stats: ReplaceStats, path: str) -> None:
        self.manual_carried = plus(self.manual_carried, stats.carried)
        self.manual_lost = plus(self.manual_lost, stats.lost)
        if stats.lost.total:
            self.manual_lost_paths.append(path)


@dataclass(frozen=True)
class _Item:
    relative: str
    path: Path | None  # None for a web page
    #: The folder the file is read below (its parent for a single-file source).
    root: Path | None = None


def _folder(source: SourceRow) -> Path:
    """A file or folder source's location as the operating system names it."""
    return Path(os_path(source.location))


def _items(source: SourceRow) -> tuple[list[_Item], list[str], str | None]:
    """What the source holds now, the files past the limit, or why it is unavailable."""
    location = _folder(source)
    if source.kind == "web":
        return [_Item(source.location, None)], [], None
    if source.kind == "file":
        if not location.is_file():
            return [], [], "the file was moved or deleted"
        return [_Item(wire_path(location.name), location, location.parent)], [], None
    if not location.is_dir():
        return [], [], "the folder was moved or deleted"
    listed = list_folder(location, source.include, source.exclude)
    items = [_Item(rel, location / os_path(rel), location) for rel in listed[:MAX_FILES_PER_SOURCE]]
    return items, listed[MAX_FILES_PER_SOURCE:], None


def _read(
    item: _Item, cancel: CancelToken | None = None, source_id: str = ""
) -> tuple[bytes, str | None]:
    """Bytes and (for web pages) the media type; ParseError with a readable reason otherwise.
    A file is opened once without following links and read from that descriptor."""
    if item.path is None:
        return fetch(
            web_auth.with_userinfo(item.relative, web_auth.userinfo_for(source_id)), cancel=cancel
        )
    root = item.root if item.root is not None else item.path.parent
    relative = item.relative if item.root is not None else item.path.name
    return read_inside(root, relative), None


def _item_of(source: SourceRow, relative_path: str) -> _Item:
    if source.kind == "web":
        return _Item(source.location, None)
    location = _folder(source)
    if source.kind == "file":
        return _Item(relative_path, location, location.parent)
    return _Item(relative_path, location / os_path(relative_path), location)


def _parse(item: _Item, data: bytes, media: str | None) -> ParsedDocument:
    parser = PARSER_BY_TYPE.get(media or "") if item.path is None else None
    if item.path is None and parser is None:
        raise ParseError(f"unsupported content type “{media or 'unknown'}”")
    return parse(data, item.relative if item.path is not None else "page.html", parser)


def read_document(source: SourceRow, relative_path: str) -> tuple[bytes, str | None]:
    """The current bytes (and a web page's media type) of one document of ``source``, read
    exactly as sync reads it (an attachment's from its message as it is now); ParseError with
    a readable reason otherwise."""
    message = message_of(relative_path) if source.kind != "web" else None
    if message is not None:
        return _attachment(source, relative_path, message).data, None
    item = _item_of(source, relative_path)
    if source.kind == "folder" and not _folder(source).is_dir():
        raise ParseError("the folder was moved or deleted")
    if item.path is not None and not os.path.lexists(item.path):
        raise ParseError("the file was moved or deleted")
    return _read(item, source_id=source.id)


def parse_document(
    source: SourceRow, relative_path: str, data: bytes, media: str | None
) -> ParsedDocument:
    """Parse what :func:`read_document` returned, with the parser sync would choose."""
    message = message_of(relative_path) if source.kind != "web" else None
    if message is not None:
        subject = _attachment(source, relative_path, message).message
        return attachments.parse_attachment(
            Attachment(attachment_name(relative_path), data, subject)
        )
    return _parse(_item_of(source, relative_path), data, media)


def _attachment(source: SourceRow, relative_path: str, message: str) -> Attachment:
    """The attachment a document's path names, read from its message as sync reads it."""
    data, media = read_document(source, message)
    with limits.budget():
        parsed = _parse(_item_of(source, message), data, media)
    return attachments.find(parsed, attachment_name(relative_path))


@dataclass
class _Run:
    """One sync of one source: where it writes and what it counts."""

    conn: sqlite3.Connection
    source: SourceRow
    settings: LibrarySettings
    cancel: CancelToken
    vectors_expected: bool
    report: SyncReport = field(default_factory=SyncReport)
    failed: int = 0


def sync_source(
    conn: sqlite3.Connection,
    source: SourceRow,
    cancel: CancelToken,
    progress: Progress | None = None,
    vectors_expected: bool = False,
) -> SyncReport:
    """Sync one source. ``vectors_expected``: an embedding model is configured, so a new
    document shows its vectors as pending from the moment it appears (never "off")."""
    report = SyncReport()
    items, past, unavailable = _items(source)
    if unavailable is not None:
        # Nothing is deleted: the source may come back (a remounted drive, a renamed folder).
        sources.set_state(conn, source.id, "unavailable", unavailable)
        report.unavailable = unavailable
        return report
    settings = libraries.get_settings(conn, source.library_id)
    run = _Run(conn, source, settings, cancel, vectors_expected, report)
    known, attached = attachments.split_known(documents.known(conn, source.id))
    present = {item.relative for item in items}
    # the files past the limit that are not in the library (one imported before newer files
    # sorted ahead of it stays: "2003 documents" beside "709 not imported" of 2,709 files)
    report.overflow = sum(1 for rel in past if rel not in known)
    escaped: dict[str, str] = {}
    if source.kind == "folder":
        # Files past the limit still exist on disk: never delete their documents. A path that
        # now is a link, a special file or leads outside loses its content, with the reason.
        for rel in known.keys() - present:
            why = still_inside(_folder(source), rel)
            if why is None:
                present.add(rel)
            elif why:
                escaped[rel] = why
    gone = [known[rel].id for rel in known if rel not in present and rel not in escaped]
    # An attachment goes with its message (gone, or no longer a regular file inside).
    gone += [k.id for rel, k in attached.items() if message_of(rel) not in present]
    report.total = len(items)
    if gone:
        documents.delete(conn, gone)
        report.removed = len(gone)
    for rel, why in sorted(escaped.items()):
        title = PurePosixPath(rel).stem
        documents.store_refused(conn, source.library_id, source.id, rel, title, why)
        run.failed += 1
    for done, item in enumerate(items):
        if progress is not None:
            progress(done, len(items), item.relative, run.failed)
        cancel.check()
        _sync_item(run, item, known.get(item.relative), attached)
    report.failed = run.failed
    if progress is not None:
        progress(len(items), len(items), None, run.failed)
    state: SourceState = "overflow" if report.overflow else "ok"
    reason = (
        f"{report.overflow} files past the {MAX_FILES_PER_SOURCE:,}-file limit were not imported"
        if report.overflow
        else None
    )
    if source.kind == "web" and items and run.failed == len(items):
        # a page that could not be read leaves its source unavailable, with why: it read
        # "✓ OK" beside its one, failed document (a helper's try)
        state, reason = "unavailable", _failure_of(conn, source.id)
    sources.set_state(conn, source.id, state, reason, len(items) + len(past), True, report.overflow)
    return report


def _failure_of(conn: sqlite3.Connection, source_id: str) -> str | None:
    row = conn.execute(
        "SELECT parse_error FROM documents WHERE source_id = ? AND parse_status = 'failed'"
        " ORDER BY id LIMIT 1",
        (source_id,),
    ).fetchone()
    return row[0] if row is not None else None


def _sync_item(
    run: _Run, item: _Item, previous: documents.Known | None, attached: dict[str, documents.Known]
) -> None:
    """Read, and unless unchanged parse and store, one file or page; a message re-read also
    brings its attachments up to date — before the message itself is stored, so a sync cut
    off between the two finds the message changed next time and finishes its attachments."""
    source = run.source
    title = PurePosixPath(item.relative).stem if item.path is not None else item.relative
    try:
        data, media = _read(item, run.cancel, source.id)
    except UnsafePath as exc:
        documents.store_refused(
            run.conn, source.library_id, source.id, item.relative, title, exc.reason
        )
        _sync_attachments(run, item.relative, (), attached)  # they leave with its content
        run.failed += 1
        return
    except ParseError as exc:
        documents.store_failed(
            run.conn, source.library_id, source.id, item.relative, title, "", 0, exc.reason
        )
        run.failed += 1
        return

    def follow(parsed: ParsedDocument) -> None:
        if item.path is not None:
            _sync_attachments(run, item.relative, parsed.attachments, attached)

    _index(run, item.relative, title, data, lambda: _parse(item, data, media), previous, follow)


def _sync_attachments(
    run: _Run,
    message: str,
    found: tuple[Attachment, ...],
    attached: dict[str, documents.Known],
) -> None:
    """The attachments of a message just read: each a document of the source (unchanged ones
    by checksum left alone), those it no longer carries removed."""
    wanted = {attachment_path(message, a.name): a for a in found}
    dropped = [
        k.id for rel, k in attached.items() if message_of(rel) == message and rel not in wanted
    ]
    if dropped:
        documents.delete(run.conn, dropped)
        run.report.removed += len(dropped)
    run.report.total += len(wanted)
    for rel, attachment in wanted.items():
        run.cancel.check()
        parse_it = partial(attachments.parse_attachment, attachment)
        _index(run, rel, attachment.name, attachment.data, parse_it, attached.get(rel))


def _index(
    run: _Run,
    rel: str,
    title: str,
    data: bytes,
    parse_it: Callable[[], ParsedDocument],
    previous: documents.Known | None,
    follow: Callable[[ParsedDocument], None] | None = None,
) -> None:
    """Parse, chunk and store one document's bytes unless its checksum shows it unchanged;
    ``follow`` gets what was parsed before it is stored (not when unchanged or failed)."""
    conn, source, report = run.conn, run.source, run.report
    checksum = hashlib.sha256(data).hexdigest()
    if previous is not None and previous.checksum == checksum:
        if previous.parse_status == "done" and not previous.failed:
            report.unchanged += 1
            return
        if previous.parse_status == "failed" and previous.parse_error in INHERENT_FAILURES:
            # an empty file fails the same way until it changes: read again at every sync, it
            # was "retried" each time and made every sync look degraded
            report.unchanged += 1
            return
        if previous.failed:
            report.retried += 1  # failed before, file unchanged: the cause may be gone
    # "running" while the file is read (PRD §7.6); the document's own store ends it, and a
    # read cut off gets its old status back
    doc_id = reading.mark_reading(
        conn, source.library_id, source.id, rel, title, run.vectors_expected
    )
    try:
        _parse_and_store(run, rel, title, data, checksum, parse_it, previous, follow)
    finally:
        reading.reading_cut_off(conn, doc_id, previous.parse_status if previous else None)


def _parse_and_store(
    run: _Run,
    rel: str,
    title: str,
    data: bytes,
    checksum: str,
    parse_it: Callable[[], ParsedDocument],
    previous: documents.Known | None,
    follow: Callable[[ParsedDocument], None] | None,
) -> None:
    conn, source, settings, report = run.conn, run.source, run.settings, run.report
    try:
        with limits.budget(run.cancel):
            parsed = parse_it()
            drafts = _chunk(parsed, source, rel, settings)
    except ParseError as exc:
        documents.store_failed(
            conn, source.library_id, source.id, rel, title, checksum, len(data), exc.reason
        )
        run.failed += 1
        return
    if follow is not None:
        follow(parsed)
    if parsed.ocr_pages:
        # Scanned pages wait for the OCR task (its own lane); pages with a text layer are
        # searchable now unless an older generation serves until OCR replaces it whole.
        if drafts and (previous is None or previous.parse_status != "done"):
            report.add(documents.store_parsed(
                conn, source.library_id, source.id, rel, parsed.title,
                parsed.media_type, checksum, len(data), drafts,
            ), rel)  # fmt: skip
        documents.store_ocr_waiting(
            conn, source.library_id, source.id, rel, parsed.title,
            parsed.media_type, checksum, len(data),
            "pending" if settings.ocr_enabled else "off",
            None if settings.ocr_enabled else OCR_OFF_REASON,
        )  # fmt: skip
        if settings.ocr_enabled:
            report.ocr_pending += 1
        else:
            run.failed += 1
        return
    report.add(documents.store_parsed(
        conn, source.library_id, source.id, rel, parsed.title, parsed.media_type,
        checksum, len(data), drafts, _awaiting_vectors if run.vectors_expected else None,
        parse_note=parsed.notes[0] if parsed.notes else None,
    ), rel)  # fmt: skip
    report.processed += 1
    report.parsed_paths.append(rel)


def _awaiting_vectors(conn: sqlite3.Connection, document_id: str) -> None:
    # In the document's own transaction, so no reader ever sees it "disabled" meanwhile.
    conn.execute(
        "UPDATE documents SET vector_status = 'pending', vector_error = NULL"
        " WHERE id = ? AND vector_status = 'disabled'",
        (document_id,),
    )


def _chunk(
    parsed: ParsedDocument, source: SourceRow, relative: str, settings: LibrarySettings
) -> list[ChunkDraft]:
    """Chunk drafts of a parsed file; a chunker failure is that file's failure, not the sync's."""
    doc_id = documents.document_id(source.id, relative)
    try:
        return chunk_document(parsed, doc_id, settings.chunking, settings.contextual_indexing)
    except (RecursionError, MemoryError, ValueError, TypeError, IndexError, KeyError) as exc:
        raise ParseError(
            f"the file could not be split into chunks ({exc.__class__.__name__})"
        ) from None
