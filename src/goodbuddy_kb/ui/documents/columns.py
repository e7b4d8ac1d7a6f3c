"""The documents pane's tables as columns (text and symbol, never colour alone; each code
worded in the user's language) and the vector index's one-line state."""

from __future__ import annotations

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts.paths import readable_path
from goodbuddy_kb.ui.i18n import model_label, tr
from goodbuddy_kb.ui.i18n.messages import say_field, say_text, technical_names
from goodbuddy_kb.ui.widgets.locator import path_text
from goodbuddy_kb.ui.widgets.table_model import Column


def status(value: str) -> str:
    return tr(f"status.{value}")


def reason(doc: c.Document) -> str:
    """Why the document is not as it should be, else what its parser wants a person to know
    (e.g. hidden sheets skipped), in the user's language."""
    if doc.retryable_error:
        return tr("rebuild.retryable", reason=say_field(doc, "retryable_error"))
    return say_field(doc, "error") or (f"ⓘ {say_field(doc, 'note')}" if doc.note else "")


def reason_tooltip(doc: c.Document) -> str:
    """The reason, and the program's own name for a failure that the reason puts in words."""
    names = technical_names(doc, "retryable_error" if doc.retryable_error else "error")
    technical = tr("error.technical.names", names=", ".join(names)) if names else ""
    return "\n".join(part for part in (reason(doc), technical) if part)


def chunk_count_text(doc: c.Document) -> str:
    """Retrievable chunks, a mark when some hold manual edits (a re-sync may overwrite) and one
    when some are switched off (so a document whose only chunk is off does not read as empty)."""
    marks = [f"✎{doc.edited_chunks}"] if doc.edited_chunks else []
    marks += [f"⊘{doc.disabled_chunks}"] if doc.disabled_chunks else []
    marks += [f"✕{doc.deleted_chunks}"] if doc.deleted_chunks else []
    marks += [f"↺{doc.replaced_edits}"] if doc.replaced_edits else []
    marks += ["ⓘ"] if doc.kept_old_chunks else []
    return " ".join([str(doc.chunk_count), *marks])


def chunk_notes(doc: c.Document) -> list[str]:
    """What the marks of ``chunk_count_text`` mean, one note per mark."""
    notes = [tr("docs.edited_chunks", count=doc.edited_chunks)] if doc.edited_chunks else []
    if doc.disabled_chunks:
        notes.append(tr("docs.disabled_chunks", count=doc.disabled_chunks))
    if doc.deleted_chunks:
        notes.append(tr("docs.deleted_chunks", count=doc.deleted_chunks))
    if doc.replaced_edits:
        notes.append(tr("docs.replaced_edits", count=doc.replaced_edits))
    if doc.kept_old_chunks:
        notes.append(tr("docs.kept_old_chunks"))
    return notes


def chunk_count_tooltip(doc: c.Document) -> str:
    return "\n".join(chunk_notes(doc))


def _nothing_to_vectorise(doc: c.Document) -> bool:
    return doc.status.fulltext == "empty" and doc.status.vector == "done"


def _unread(doc: c.Document) -> bool:
    """A document that could not be read has nothing to vectorise or extract: "– Off" beside it
    read as if those stages had been switched off."""
    return doc.status.parse == "failed"


def vector_status(doc: c.Document) -> str:
    """The vector stage; "none" where no chunk of the document can be retrieved ("✓ Done"
    beside "∅ No retrievable content" read as if something had been vectorised)."""
    if _nothing_to_vectorise(doc) or _unread(doc):
        return tr("status.none")
    if doc.status.vector == "failed" and doc.error_code == "task.cancelled_by_user":
        return tr("task.state.cancelled")  # nothing failed: a person stopped it
    return status(doc.status.vector)


def vector_detail(doc: c.Document) -> str:
    return tr("docs.vector_none") if _nothing_to_vectorise(doc) else ""


def graph_status(doc: c.Document) -> str:
    """The graph stage, and once done how many entities it found: "done" alone read the same
    for a document the extraction found nothing in."""
    if doc.status.graph == "done":
        return tr("docs.graph_done", entities=doc.graph_entities)
    return tr("status.none") if _unread(doc) else status(doc.status.graph)


def graph_detail(doc: c.Document) -> str:
    """What the extraction found in the document, or why it failed."""
    if doc.status.graph == "done":
        return tr("docs.graph_found", entities=doc.graph_entities, relations=doc.graph_relations)
    if doc.status.graph == "failed":
        return say_field(doc, "graph_error")
    return ""


def ocr_status(document: c.Document) -> str:
    """The OCR stage of a scanned document ("" for documents that need none)."""
    ocr = document.ocr
    if ocr is None:
        return ""
    if ocr.status == "done":
        confidence = f"{ocr.mean_confidence:.2f}" if ocr.mean_confidence is not None else "–"
        text = (
            tr("ocr.done_low", confidence=confidence, low=ocr.low_confidence_lines)
            if ocr.low_confidence_lines
            else tr("ocr.done", confidence=confidence)
        )
        if ocr.skipped_pages:
            text += tr("ocr.partial", skipped=ocr.skipped_pages)
        return text
    return tr(f"ocr.{ocr.status}")


def ocr_detail(document: c.Document) -> str:
    """The per-document note (pages, mean confidence, low-confidence lines) or the reason."""
    ocr = document.ocr
    if ocr is None:
        return ""
    if ocr.status == "off":
        return tr("ocr.off_reason")
    if ocr.status != "done":
        names = technical_names(ocr, "reason")
        technical = tr("error.technical.names", names=", ".join(names)) if names else ""
        return "\n".join(part for part in (say_field(ocr, "reason"), technical) if part)
    confidence = f"{ocr.mean_confidence:.2f}" if ocr.mean_confidence is not None else "–"
    key = "ocr.note_one" if ocr.pages == 1 else "ocr.note"
    note = tr(key, pages=ocr.pages, confidence=confidence, low=ocr.low_confidence_lines)
    if ocr.skipped_pages:
        key = "ocr.skipped_one" if ocr.skipped_pages == 1 else "ocr.skipped"
        note += tr(key, skipped=ocr.skipped_pages, reason=say_field(ocr, "skip_reason"))
    return note


SOURCE_COLUMNS: list[Column[c.Source]] = [
    Column("col.kind", lambda s: tr(f"ref.kind.{s.kind}")),
    Column(
        "col.location",
        lambda s: readable_path(s.location),
        lambda s: say_field(s, "state_reason") or readable_path(s.location),
    ),
    Column(
        "col.state",
        lambda s: (
            tr(f"state.{s.state}")
            + (f" — {say_field(s, 'state_reason')}" if s.state_reason else "")
        ),
    ),
    Column("col.documents", lambda s: str(s.document_count)),
    Column("col.watch", lambda s: tr("yes") if s.watch else tr("no")),
]


DOCUMENT_COLUMNS: list[Column[c.Document]] = [
    Column("col.path", lambda d: path_text(d.path), lambda d: d.title),
    Column("col.parse", lambda d: status(d.status.parse)),
    Column("col.fulltext", lambda d: status(d.status.fulltext)),
    Column("col.vector", vector_status, vector_detail),
    Column("col.graph", graph_status, graph_detail),
    Column("col.ocr", ocr_status, ocr_detail),
    Column("col.chunks", chunk_count_text, chunk_count_tooltip),
    Column("col.error", reason, reason_tooltip),
]
OCR_COLUMN = next(i for i, col in enumerate(DOCUMENT_COLUMNS) if col.header_key == "col.ocr")
GRAPH_COLUMN = next(i for i, col in enumerate(DOCUMENT_COLUMNS) if col.header_key == "col.graph")
CHUNKS_COLUMN = next(i for i, col in enumerate(DOCUMENT_COLUMNS) if col.header_key == "col.chunks")


def vector_state_text(info: m.VectorIndexInfo) -> str:
    """One truthful line: the configured model, whether the index matches it, coverage, and
    what to do next — the same facts the document rows and the summary show."""
    coverage = tr("vector.coverage", vectors=info.vectors, chunks=info.retrievable_chunks)
    if info.configured_label is None:
        return tr("vector.off")
    model = tr("docs.vector_model", model=model_label(info.configured_label))
    if info.state == "building":
        return f"{model} · {tr('vector.building')} · {coverage}"
    if info.model_label is None:
        return f"{model} · {tr('vector.not_built')}"
    if not info.compatible:
        return f"{model} · {tr('vector.mismatch', built=model_label(info.model_label))}"
    gaps = info.retrievable_chunks - info.vectors
    if gaps and info.vectorising:  # new chunks' vectors on the way ("found by full-text only"
        return f"{model} · {tr('vector.building')} · {coverage}"  # read as if none were coming)
    state = tr("vector.matches") if gaps == 0 else tr("vector.partial", missing=gaps)
    if info.rebuild_offered:
        state = say_field(info, "reason") or state
    failure = (
        f" · {tr('vector.last_failure', reason=say_text(info.last_failure))}"
        if info.last_failure and gaps
        else ""
    )
    return f"{model} · {state} · {coverage}{failure}"


def summary_text(s: c.LibrarySummary) -> str:
    """The documents tab's count line: what is usable, vectorised, failed (and of those, what
    is still searched in its previous version), pending, empty and cancelled."""
    text = tr(
        "docs.summary",
        documents=s.documents,
        fulltext=s.fulltext_usable,
        vectorised=s.vectorised,
        failed=s.failed,
        pending=s.pending,
    )
    if s.failed_serving_previous:
        text += tr("docs.summary.previous", count=s.failed_serving_previous)
    if s.no_retrievable_content:
        text += tr("docs.summary.empty", count=s.no_retrievable_content)
    if s.vector_cancelled:
        text += tr("docs.summary.cancelled", count=s.vector_cancelled)
    if s.waiting_vector_rebuild:
        text += tr("docs.summary.incompatible", count=s.waiting_vector_rebuild)
    if s.not_imported:
        limit = f"{c.MAX_FILES_PER_SOURCE:,}"
        text += tr("docs.summary.not_imported", count=s.not_imported, limit=limit)
    return text
