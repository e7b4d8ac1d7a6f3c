"""The OCR task of a library: every document whose OCR is pending, one page at a time.

Runs in its own task lane, so syncs (full text of every other document) never wait behind a
long scan. Each document is contained: a file that cannot be read, rendered or recognised
fails alone with its reason (retried by the next sync or a rebuild); a cancel stops between
pages and leaves the document pending, its previous generation serving.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from goodbuddy_kb.contracts.errors import CancelledError
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking import ChunkDraft, chunk_document
from goodbuddy_kb.main_process.ocr.engine import OcrUnavailable
from goodbuddy_kb.main_process.ocr.render import RenderError
from goodbuddy_kb.main_process.ocr.stage import (
    OCR_OFF_REASON,
    OcrLimits,
    OcrNote,
    PageProgress,
    mark_drafts,
    recognise_document,
)
from goodbuddy_kb.main_process.parsing import ParsedDocument, ParseError
from goodbuddy_kb.main_process.storage import documents, libraries, sources
from goodbuddy_kb.main_process.sync.engine import parse_document, read_document

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str | None, int], None]


class OcrFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def recognise(
    parsed: ParsedDocument,
    data: bytes,
    cancel: CancelToken,
    progress: PageProgress | None,
    limits: OcrLimits | None = None,
) -> tuple[ParsedDocument, OcrNote]:
    """Recognise ``parsed``'s scanned pages; OcrFailed (with a readable reason) on any failure
    but a cancel, so one bad file never stops the task."""
    try:
        return recognise_document(parsed, data, cancel, progress, limits=limits)
    except CancelledError:
        raise
    except (OcrUnavailable, RenderError) as exc:
        raise OcrFailed(exc.reason) from exc
    except Exception as exc:  # the recogniser's own failures (ONNX Runtime, OpenCV, memory)
        log.warning("OCR failed: %s", exc.__class__.__name__)
        raise OcrFailed(english("ocr.failed", {"error": exc.__class__.__name__})) from exc


def ocr_drafts(
    parsed: ParsedDocument, note: OcrNote, doc_id: str, conn: sqlite3.Connection, library_id: str
) -> list[ChunkDraft]:
    settings = libraries.get_settings(conn, library_id)
    drafts = chunk_document(parsed, doc_id, settings.chunking, settings.contextual_indexing)
    return mark_drafts(drafts, parsed.ocr_pages, note)


@dataclass
class OcrReport:
    documents: int = 0
    succeeded: int = 0
    failed: int = 0
    #: The first failure: the document's path and its reason.
    first_error: tuple[str, str] | None = None

    def error(self) -> str | None:
        """The task's error for a person (a catalogue sentence), None when nothing failed."""
        if self.first_error is None:
            return None
        path, reason = self.first_error
        return english("ocr.task_failed", {"count": self.failed, "path": path, "reason": reason})


def run_ocr(
    conn: sqlite3.Connection,
    library_id: str,
    cancel: CancelToken,
    progress: Progress,
    limits: OcrLimits | None = None,
) -> OcrReport:
    report = OcrReport()
    waiting = documents.ocr_waiting(conn, library_id)
    report.documents = len(waiting)
    for number, item in enumerate(waiting):
        progress(0, 0, item.relative_path, report.failed)
        try:
            cancel.check()
            error = _one(conn, library_id, item, cancel, progress, report.failed, limits)
        except CancelledError:
            # the task ends counted in documents (pages were the count while one was read)
            progress(number, len(waiting), None, report.failed)
            raise
        if error is None:
            report.succeeded += 1
        else:
            report.failed += 1
            report.first_error = report.first_error or (item.relative_path, error)
    progress(len(waiting), len(waiting), None, report.failed)  # the task ends in documents
    return report


def _one(
    conn: sqlite3.Connection,
    library_id: str,
    item: documents.OcrWaiting,
    cancel: CancelToken,
    progress: Progress,
    failed: int,
    limits: OcrLimits | None,
) -> str | None:
    """OCR one document; its failure reason, or None."""
    source = sources.get(conn, library_id, item.source_id)
    title = item.relative_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    checksum, size = "", 0
    try:
        data, media = read_document(source, item.relative_path)
        checksum, size = hashlib.sha256(data).hexdigest(), len(data)
        parsed = parse_document(source, item.relative_path, data, media)
    except ParseError as exc:
        documents.store_failed(
            conn, library_id, source.id, item.relative_path, title, checksum, size, exc.reason
        )
        documents.set_ocr_status(conn, item.id, "failed", exc.reason)
        return exc.reason
    if not libraries.get_settings(conn, library_id).ocr_enabled:
        documents.store_ocr_waiting(
            conn, library_id, source.id, item.relative_path, parsed.title,
            parsed.media_type, checksum, size, "off", OCR_OFF_REASON,
        )  # fmt: skip
        return None
    documents.set_ocr_status(conn, item.id, "running")
    try:
        full, note = recognise(
            parsed,
            data,
            cancel,
            lambda done, total: progress(done, total, item.relative_path, failed),
            limits,
        )
    except CancelledError:
        documents.set_ocr_status(conn, item.id, "pending")
        raise
    except OcrFailed as exc:
        documents.store_failed(
            conn, library_id, source.id, item.relative_path, parsed.title, checksum, size,
            exc.reason,
        )  # fmt: skip
        documents.set_ocr_status(conn, item.id, "failed", exc.reason)
        return exc.reason
    drafts = ocr_drafts(full, note, item.id, conn, library_id)
    documents.store_parsed(
        conn, library_id, source.id, item.relative_path, full.title, full.media_type,
        checksum, size, drafts, ocr_note=note.to_json(),
    )  # fmt: skip
    return None
