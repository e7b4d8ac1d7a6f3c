"""Rebuilding one document: re-read its source, parse, chunk with the library's current
settings, embed what the current vector version lacks — all beside the serving generation —
then swap the new generation in with one transaction (chunks, full-text and CJK rows, vectors,
statuses). Until that commit the old generation serves; when any step fails it stays, and the
document records a retryable error naming the cause."""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from goodbuddy_kb.contracts.errors import CancelledError, KbError, NotFoundError
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking import chunk_document
from goodbuddy_kb.main_process.chunking.carryover import CarryOver, Tally, plus
from goodbuddy_kb.main_process.embeddings.base import EmbeddingProvider
from goodbuddy_kb.main_process.ocr.run import OcrFailed, ocr_drafts, recognise
from goodbuddy_kb.main_process.ocr.stage import OCR_OFF_REASON
from goodbuddy_kb.main_process.parsing import ParseError
from goodbuddy_kb.main_process.rebuild.generation import embed_plan, plan_vectors, write_vectors
from goodbuddy_kb.main_process.storage import documents, libraries, manual_work, sources
from goodbuddy_kb.main_process.sync.engine import parse_document, read_document


@dataclass(frozen=True)
class DocumentOutcome:
    document_id: str
    path: str
    ok: bool
    error: str | None = None
    #: The embedding service failed (a library rebuild stops after this happens twice in a row).
    embedding_failed: bool = False
    #: The previous generation still serves (False: the document had none).
    kept_previous: bool = False
    #: Left as it was: the new chunking could not keep all its manual work; ``lost`` then counts
    #: all of it (what it keeps by being skipped: the work that would have carried over too).
    skipped: bool = False
    #: Manual work the new generation kept, and what it dropped (or, skipped, all it keeps).
    carried: Tally = field(default_factory=Tally)
    lost: Tally = field(default_factory=Tally)


@dataclass(frozen=True)
class DocumentRow:
    id: str
    library_id: str
    source_id: str
    relative_path: str
    title: str


def get_document(conn: sqlite3.Connection, library_id: str, document_id: str) -> DocumentRow:
    """The document, checking that it belongs to ``library_id``."""
    row = conn.execute(
        "SELECT id, library_id, source_id, relative_path, title FROM documents"
        " WHERE id = ? AND library_id = ?",
        (document_id, library_id),
    ).fetchone()
    if row is None:
        raise NotFoundError("document not found in this library", {"documentId": document_id})
    return DocumentRow(*row)


def rebuild_document(
    conn: sqlite3.Connection,
    data_dir: Path,
    library_id: str,
    document_id: str,
    provider: EmbeddingProvider | None,
    cancel: CancelToken,
    discard: bool = False,
) -> DocumentOutcome:
    """Rebuild one document; raises CancelledError (before the swap, nothing changed) and
    NotFoundError when the document or its source was removed meanwhile.

    A person's chunk work is carried over where the new chunking allows; a document where it
    cannot be is left as it is (``skipped``). The check runs again inside the swapping
    transaction, so an edit made meanwhile is never dropped either. With ``discard`` the work the
    new chunking cannot keep is dropped and the rest still carried over (it dropped all of it,
    though the rebuild dialog and the command line say only what cannot be kept goes; a
    helper's try lost two carried chunk states to it)."""
    doc = get_document(conn, library_id, document_id)
    source = sources.get(conn, library_id, doc.source_id)
    checksum, size = "", 0
    try:
        data, media = read_document(source, doc.relative_path)
        checksum, size = hashlib.sha256(data).hexdigest(), len(data)
        cancel.check()
        parsed = parse_document(source, doc.relative_path, data, media)
    except ParseError as exc:
        return _failed(conn, doc, checksum, size, exc.reason)
    cancel.check()
    settings = libraries.get_settings(conn, library_id)
    ocr_note: str | None = None
    if parsed.ocr_pages:
        # A rebuild is how a document whose OCR failed is retried: recognise it here.
        if not settings.ocr_enabled:
            documents.store_ocr_waiting(
                conn, library_id, source.id, doc.relative_path, parsed.title,
                parsed.media_type, checksum, size, "off", OCR_OFF_REASON,
            )  # fmt: skip
            return DocumentOutcome(doc.id, doc.relative_path, False, OCR_OFF_REASON)
        try:
            parsed, note = recognise(parsed, data, cancel, None)
        except OcrFailed as exc:
            outcome = _failed(conn, doc, checksum, size, exc.reason)
            documents.set_ocr_status(conn, doc.id, "failed", exc.reason)
            return outcome
        drafts = ocr_drafts(parsed, note, doc.id, conn, library_id)
        ocr_note = note.to_json()
    else:
        drafts = chunk_document(parsed, doc.id, settings.chunking, settings.contextual_indexing)
    manual = manual_work.plan(conn, doc.id, drafts)
    if manual.lost.total and not discard:
        return _skipped(conn, doc, manual)
    plan = plan_vectors(conn, library_id, doc.id, manual.drafts, provider)
    if provider is not None and plan.todo:
        try:
            embed_plan(plan, provider, cancel)
        except CancelledError:
            raise
        except (KbError, ValueError) as exc:
            reason = exc.message if isinstance(exc, KbError) else str(exc)
            outcome = _failed(conn, doc, checksum, size, f"embedding failed: {reason}")
            return DocumentOutcome(
                doc.id, doc.relative_path, False, outcome.error, True, outcome.kept_previous
            )
    cancel.check()  # a cancel before the swap rolls this document back: it stays as it was
    try:
        documents.store_parsed(
            conn,
            library_id,
            source.id,
            doc.relative_path,
            parsed.title,
            parsed.media_type,
            checksum,
            size,
            drafts,
            within=lambda c, doc_id: write_vectors(c, data_dir, doc_id, plan),
            parse_note=parsed.notes[0] if parsed.notes else None,
            ocr_note=ocr_note,
            manual="carry" if discard else "keep",
        )
    except manual_work.ManualWorkWouldBeLost as exc:  # edited meanwhile (rolled back)
        return _skipped(conn, doc, exc.plan)
    except sqlite3.IntegrityError as exc:  # the source went while we read (rolled back)
        raise NotFoundError("the document's source was removed", {"documentId": doc.id}) from exc
    return DocumentOutcome(
        doc.id, doc.relative_path, True, carried=manual.carried, lost=manual.lost
    )


def _skipped(conn: sqlite3.Connection, doc: DocumentRow, plan: CarryOver) -> DocumentOutcome:
    """Skipped to keep its manual work: all of it stays (the edits the new chunking would have
    dropped and the work it would have carried over alike), and the document is marked as
    keeping chunks made with earlier settings until a sync or rebuild replaces them."""
    documents.mark_kept_old_chunks(conn, doc.id)
    kept = plus(plan.lost, plan.carried)
    return DocumentOutcome(
        doc.id, doc.relative_path, False, kept_previous=True, skipped=True, lost=kept
    )


def _failed(
    conn: sqlite3.Connection, doc: DocumentRow, checksum: str, size: int, reason: str
) -> DocumentOutcome:
    documents.store_failed(
        conn, doc.library_id, doc.source_id, doc.relative_path, doc.title, checksum, size, reason
    )
    kept = (
        conn.execute("SELECT 1 FROM chunks WHERE document_id = ? LIMIT 1", (doc.id,)).fetchone()
        is not None
    )
    return DocumentOutcome(doc.id, doc.relative_path, False, reason, kept_previous=kept)
