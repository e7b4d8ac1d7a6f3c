"""The OCR stage of one document: its pages without usable text are rendered and recognised
one at a time, in reading order, with page locators, and merged with the pages that had a
text layer.

Bounded like every parser: at most ``MAX_OCR_PAGES`` pages and ``OCR_BUDGET_S`` seconds per
document (``OcrLimits``). Pages past the cap are left out; the budget is checked between pages,
so the page being read finishes and the rest are left out. Either way the note says how many
pages were left out and why (a message code). A cancel is honoured between pages. Lines under
``LOW_CONFIDENCE`` stay searchable and are marked in their chunks.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from goodbuddy_kb.contracts.catalogue import CATALOGUE
from goodbuddy_kb.contracts.messages import english
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chunking import ChunkDraft
from goodbuddy_kb.main_process.ocr.engine import OcrEngine, get_engine
from goodbuddy_kb.main_process.ocr.layout import paragraphs
from goodbuddy_kb.main_process.ocr.render import open_pages
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, Section

#: Pages recognised per document at most (a page takes seconds on a 2-core machine).
MAX_OCR_PAGES = 200
#: Seconds of recognition per document at most.
OCR_BUDGET_S = 20 * 60.0
#: Lines recognised with a lower confidence are marked (still indexed and searchable).
#: ``GOODBUDDY_OCR_LOW_CONFIDENCE`` (a number in (0, 1]) sets another floor for the backend.
LOW_CONFIDENCE = 0.8
#: How many low-confidence lines the note keeps (the count is always complete).
NOTE_LINES = 200

#: The reason a scanned document gives when its library has OCR switched off.
OCR_OFF_REASON = CATALOGUE["ocr.off"]


def low_confidence_floor() -> float:
    raw = os.environ.get("GOODBUDDY_OCR_LOW_CONFIDENCE", "")
    try:
        value = float(raw)
    except ValueError:
        return LOW_CONFIDENCE
    return value if 0.0 < value <= 1.0 else LOW_CONFIDENCE


@dataclass(frozen=True)
class OcrLimits:
    """The bounds of one document's OCR, and the confidence below which a line is marked."""

    max_pages: int = MAX_OCR_PAGES
    budget_s: float = OCR_BUDGET_S
    low_confidence: float = field(default_factory=low_confidence_floor)


PageProgress = Callable[[int, int], None]


@dataclass
class OcrNote:
    """What the document's status shows: text came from OCR, how sure it is, what was left."""

    pages: int = 0
    lines: int = 0
    confidence_sum: float = 0.0
    low_confidence: list[dict[str, Any]] = field(default_factory=list)
    low_confidence_count: int = 0
    skipped_pages: int = 0
    skip_reason: str | None = None

    @property
    def mean_confidence(self) -> float | None:
        return round(self.confidence_sum / self.lines, 4) if self.lines else None

    def to_json(self) -> str:
        return json.dumps(
            {
                "pages": self.pages,
                "lines": self.lines,
                "meanConfidence": self.mean_confidence,
                "lowConfidence": self.low_confidence,
                "lowConfidenceCount": self.low_confidence_count,
                "skippedPages": self.skipped_pages,
                "skipReason": self.skip_reason,
            },
            ensure_ascii=False,
        )


def recognise_document(
    parsed: ParsedDocument,
    data: bytes,
    cancel: CancelToken,
    progress: PageProgress | None = None,
    engine: OcrEngine | None = None,
    limits: OcrLimits | None = None,
) -> tuple[ParsedDocument, OcrNote]:
    """``parsed`` with its OCR pages recognised. Raises CancelledError between pages,
    OcrUnavailable when the engine cannot run, RenderError when the file cannot be rendered."""
    engine = engine or get_engine()
    limits = limits or OcrLimits()
    max_pages, budget_s = limits.max_pages, limits.budget_s
    note = OcrNote()
    todo = list(parsed.ocr_pages[:max_pages])
    if len(parsed.ocr_pages) > max_pages:
        note.skipped_pages = len(parsed.ocr_pages) - max_pages
        note.skip_reason = english("ocr.page_cap", {"limit": max_pages})
    recognised: list[Section] = []
    started = time.monotonic()
    with open_pages(data, parsed.media_type) as pages:
        for done, number in enumerate(todo):
            if progress is not None:
                progress(done, len(todo))
            cancel.check()  # between pages: what was recognised so far is dropped whole
            if done and time.monotonic() - started > budget_s:
                note.skipped_pages += len(todo) - done
                note.skip_reason = english(
                    "ocr.time_budget", {"minutes": f"{budget_s / 60:.3g}", "page": todo[done - 1]}
                )
                break
            lines = engine.recognise(pages.page(number))
            note.pages += 1
            for line in lines:
                note.lines += 1
                note.confidence_sum += line.confidence
                if line.confidence < limits.low_confidence:
                    note.low_confidence_count += 1
                    if len(note.low_confidence) < NOTE_LINES:
                        note.low_confidence.append(
                            {
                                "page": number,
                                "text": line.text,
                                "confidence": round(line.confidence, 3),
                            }
                        )
            recognised.extend(
                Section(p.text, "paragraph", (), Locator(page=number)) for p in paragraphs(lines)
            )
        if progress is not None:
            progress(note.pages, len(todo))  # short of the total when the budget ran out
    sections = sorted(
        [*parsed.sections, *recognised], key=lambda s: s.locator.page or 0
    )  # stable: a page's own order is kept
    return replace(parsed, sections=sections), note


def mark_drafts(
    drafts: list[ChunkDraft], ocr_pages: tuple[int, ...], note: OcrNote
) -> list[ChunkDraft]:
    """Chunks from OCR pages say so in their locator (``ocr: true``), and carry the
    low-confidence lines they contain (``lowConfidence``) for the chunk view."""
    pages = set(ocr_pages)
    marked: list[ChunkDraft] = []
    for draft in drafts:
        first = draft.locator.get("page")
        last = draft.locator.get("pageEnd", first)
        span = (
            set(range(first, last + 1))
            if isinstance(first, int) and isinstance(last, int)
            else set()
        )
        if not span & pages:
            marked.append(draft)
            continue
        locator = {**draft.locator, "ocr": True}
        low = [
            item["text"]
            for item in note.low_confidence
            if item["page"] in span
            and item["text"].strip()
            and item["text"].strip() in draft.content
        ]
        if low:
            locator["lowConfidence"] = low
        marked.append(replace(draft, locator=locator))
    return marked
