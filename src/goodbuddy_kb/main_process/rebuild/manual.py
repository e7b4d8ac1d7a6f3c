"""A person's chunk work in a rebuild's words: the preview a rebuild dialog shows before it
starts (which documents hold edited, disabled and deleted chunks) and the task summary's part
that says what was carried over, discarded, or kept by skipping documents."""

from __future__ import annotations

import sqlite3

from goodbuddy_kb.contracts import rebuild as r
from goodbuddy_kb.main_process.chunking.carryover import Tally, plus
from goodbuddy_kb.main_process.storage import manual_work


def counts(tally: Tally) -> r.ManualWorkCounts:
    return r.ManualWorkCounts(edited=tally.edited, disabled=tally.disabled, deleted=tally.deleted)


def preview(
    conn: sqlite3.Connection, library_id: str, document_id: str | None
) -> r.RebuildPreviewResponse:
    """The documents holding manual work (the first ``MAX_LISTED_DOCUMENTS`` named) and the
    total over all of them."""
    work = manual_work.by_document(conn, library_id, document_id)
    total = Tally()
    for item in work:
        total = plus(total, item.counts)
    listed = work[: r.MAX_LISTED_DOCUMENTS]
    return r.RebuildPreviewResponse(
        documents=[
            r.DocumentManualWork(document_id=w.document_id, path=w.path, counts=counts(w.counts))
            for w in listed
        ],
        more_documents=len(work) - len(listed),
        total=counts(total),
    )


def outcome(
    choice: r.ManualWorkChoice,
    carried: Tally,
    lost: Tally,
    skipped: list[str],
    lost_paths: list[str] | None = None,
) -> r.ManualWorkOutcome | None:
    """The summary's part, or None when the rebuild met no manual work at all.
    ``lost_paths``: the documents whose work was dropped (named in the summary)."""
    if not (carried.total or lost.total or skipped):
        return None
    return r.ManualWorkOutcome(
        choice=choice,
        carried=counts(carried),
        discarded=counts(lost) if choice == "discard" else r.ManualWorkCounts(),
        discarded_paths=(lost_paths or [])[: r.MAX_LISTED_DOCUMENTS] if choice == "discard" else [],
        skipped_documents=len(skipped),
        skipped_paths=skipped[: r.MAX_LISTED_DOCUMENTS],
        kept=counts(lost) if choice == "skip" else r.ManualWorkCounts(),
    )
