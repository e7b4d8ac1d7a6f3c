"""How a citation reads wherever it is shown (workbench "View chunk", the chat's "Show context",
the chat's sources table): a header naming the library, the document, the source and the
locator (US-H1), then the cited chunk among its neighbours or under its parent, the hit in bold,
tables (a sheet's rows) as tables.
A locator is shown even when the source cannot be opened at that exact place (US-H2)."""

from __future__ import annotations

import html

from goodbuddy_kb.contracts.errors import KbError
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.contracts.retrieval import ReferenceContextResponse
from goodbuddy_kb.qt.widgets import QtWidgets
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say_error, say_field
from goodbuddy_kb.ui.widgets.locator import format_locator, path_text
from goodbuddy_kb.ui.widgets.table_text import text_html


def reference_header(result: ReferenceContextResponse) -> list[tuple[str, str]]:
    """(label, value) rows of the citation header, in the order a reader checks them."""
    document = result.document_title or ""
    path = path_text(result.document_path or "")
    if path and path != document:
        document = f"{document} ({path})" if document else path
    kind = result.source_kind or ""
    source = result.source_location or ""
    if kind in ("file", "folder", "web"):
        source = f"{tr(f'ref.kind.{kind}')} · {source}"
    return [
        (tr("ref.library"), result.library_name or ""),
        (tr("ref.document"), document),
        (tr("ref.source"), source),
        (tr("ref.locator"), format_locator(Locator.from_wire(result.locator)) or "–"),
    ]


def open_outcome(document: str, locator: Locator, error: KbError | None) -> str:
    """What "Open source" did, with where the hit is in the file (the opener cannot jump to a
    sheet's rows or a slide, so the person is told where to look, in their language)."""
    place = format_locator(locator)
    if error is not None:
        failed = tr("error.generic", message=say_error(error)).rstrip("。.")
        return (
            tr("ref.open_failed_at", error=failed, document=document, place=place)
            if place
            else failed
        )
    if place:
        return tr("ref.opened_at", document=document, place=place)
    return tr("ref.opened", document=document)


#: The name of the cited chunk's anchor in ``reference_html``.
HIT_ANCHOR = "hit"


def reference_html(result: ReferenceContextResponse) -> str:
    """The whole reference as HTML (every value escaped); a stale one says so plainly."""
    if not result.valid:
        return f"<p><b>⚠ {html.escape(say_field(result, 'message') or tr('ref.stale'))}</b></p>"
    rows = "".join(
        f"<tr><td style='padding-right:8px'><b>{html.escape(label)}</b></td>"
        f"<td>{html.escape(value)}</td></tr>"
        for label, value in reference_header(result)
    )
    return f"<table>{rows}</table><hr>{_chunks_html(result)}"


def _hit_html(content: str, alone: bool = False) -> str:
    # The cited chunk carries the anchor HIT_ANCHOR (a view can scroll to it) and is bold among
    # the text around it; ``alone``, with nothing around it, it is plain (a whole chunk in bold
    # read as a heading: a helper's try).
    style = "" if alone else " style='font-weight: bold'"
    return f"<a name='{HIT_ANCHOR}'></a><div{style}>{text_html(content)}</div>"


def _chunks_html(result: ReferenceContextResponse) -> str:
    """The neighbours with the hit among them; a child inside its parent: the parent's whole
    text with the child's part in bold where it stands (once, not repeated under it)."""
    parent = next((ch for ch in result.chunks if ch.role == "parent"), None)
    hit = next((ch for ch in result.chunks if ch.is_hit), None)
    if parent is not None and hit is not None and hit.role == "child":
        at = parent.content.find(hit.content)
        if at >= 0:
            before, after = parent.content[:at], parent.content[at + len(hit.content) :]
            return (
                f"<div>{text_html(before)}</div>{_hit_html(hit.content)}"
                f"<div>{text_html(after)}</div>"
            )
    alone = len(result.chunks) == 1
    return "".join(
        _hit_html(ch.content, alone) if ch.is_hit else f"<div>{text_html(ch.content)}</div>"
        for ch in result.chunks
    )


def show_hit(view: QtWidgets.QTextBrowser) -> None:
    """Scroll ``view`` to the cited chunk (anchor HIT_ANCHOR) only when its first paragraph is
    not already in view from the top: a short context scrolled to its end cut the source line
    at the top in half."""
    document = view.document()
    block = document.begin()
    while block.isValid() and HIT_ANCHOR not in block.charFormat().anchorNames():
        block = block.next()
    fits = (
        block.isValid()
        and document.documentLayout().blockBoundingRect(block).bottom() <= view.viewport().height()
    )
    if fits:
        view.verticalScrollBar().setValue(0)
    else:
        view.scrollToAnchor(HIT_ANCHOR)
