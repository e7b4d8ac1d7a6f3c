"""How a locator reads wherever a chunk's place is shown — the workbench's results, the chat's
citations, a reference's header and the chunk dialog — in the user's language: "第 3–4 页 ·
第 12–18 行 · 请假 > 年假 · OCR" / "p. 3–4 · lines 12–18 · Leave > Annual · OCR"; an e-book's
chunk starts with its chapter, 章节“入职” / chapter "Onboarding"; a presentation's with its slide,
"第 7 张幻灯片" / "slide 7"; a spreadsheet's with its sheet and rows,
"工作表“差旅标准” · 第 12–30 行" / "Sheet "差旅标准" · rows 12–30"; an e-mail attachment's with its
message, 邮件“报销流程”的附件 / attachment of "Expense policy"."""

from __future__ import annotations

from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.contracts.paths import attachment_name, message_of, readable_path
from goodbuddy_kb.ui.i18n import tr


def ocr_mark(locator: Locator) -> str:
    """``OCR`` for text from scanned pages, with the count of its low-confidence lines."""
    if not locator.ocr:
        return ""
    low = len(locator.low_confidence)
    return tr("ref.ocr_low", count=low) if low else tr("ref.ocr")


def format_locator(locator: Locator, *, headings: bool = True, ocr: bool = True) -> str:
    """Page (range), slide (range), line (range), sheet and row (range), heading path (unless
    ``headings`` is off: a column of its own shows it) and the OCR mark (unless ``ocr`` is off),
    joined by `` · ``."""
    parts = []
    if locator.message:
        parts.append(tr("ref.attachment_of", subject=locator.message))
    if locator.chapter:
        parts.append(tr("ref.chapter", title=locator.chapter))
    page, last_page = locator.page, locator.last_page
    if page is not None:
        parts.append(tr("ref.page", page=f"{page}–{last_page}" if last_page != page else page))
    slide, last_slide = locator.slide, locator.last_slide
    if slide is not None:
        parts.append(
            tr("ref.slides", slides=f"{slide}–{last_slide}")
            if last_slide != slide
            else tr("ref.slide", slide=slide)
        )
    start, end = locator.line_start, locator.last_line
    if start is not None:
        parts.append(
            tr("ref.lines", lines=f"{start}–{end}") if end != start else tr("ref.line", line=start)
        )
    if locator.sheet:
        parts.append(tr("ref.sheet", sheet=locator.sheet))
    first_row, last_row = locator.row_start, locator.last_row
    if first_row is not None:
        parts.append(
            tr("ref.rows", rows=f"{first_row}–{last_row}")
            if last_row != first_row
            else tr("ref.row", row=first_row)
        )
    if headings and locator.heading_path and locator.heading_path != [locator.sheet]:
        parts.append(" > ".join(locator.heading_path))
    if ocr:
        parts.append(ocr_mark(locator))
    return " · ".join(part for part in parts if part)


def path_text(path: str) -> str:
    """A document's path for people; an e-mail attachment's as its message and its name,
    "mails/a.eml › 附件 标准.xlsx" / "mails/a.eml › attachment 标准.xlsx"."""
    message = message_of(path)
    if message is None:
        return readable_path(path)
    name = readable_path(attachment_name(path))
    return tr("ref.attachment_path", message=readable_path(message), name=name)
