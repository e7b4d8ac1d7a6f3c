"""How a chunk reads in the chunks dialog: its place among parents and children, its label,
its page locator with the OCR mark (the shared locator text), where the low-confidence OCR
lines sit in the content, and the columns of the chunk table (a model tested without widgets)."""

from __future__ import annotations

from goodbuddy_kb.contracts import chunks as k
from goodbuddy_kb.contracts.locator import Locator
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.widgets.locator import format_locator
from goodbuddy_kb.ui.widgets.table_model import Column


def role_text(chunk: k.ChunkSummary) -> str:
    """The chunk's place among parents and children, in words (never colour alone)."""
    if chunk.role == "parent":
        return tr("chunks.role.parent", count=chunk.child_count)
    if chunk.role == "child":
        return tr("chunks.role.child", parent=chunk.parent_number)
    return tr("chunks.role.standalone")


def chunk_label(chunk: k.ChunkSummary) -> str:
    heading = " > ".join(chunk.heading_path[-2:])
    if not heading:
        return f"#{chunk.number}"
    return tr("chunks.label_heading", number=chunk.number, heading=heading)


def place(chunk: k.ChunkSummary) -> str:
    """Page and lines (the heading has its own column), and whether the text came from OCR."""
    return format_locator(Locator.from_wire(chunk.locator), headings=False)


def short(line: str, limit: int = 40) -> str:
    return line if len(line) <= limit else line[: limit - 1] + "…"


def doubt_spans(content: str, lines: list[str]) -> list[tuple[int, int]]:
    """(start, length) of every occurrence of each line in ``content``, in order."""
    spans: set[tuple[int, int]] = set()
    for line in lines:
        needle = line.strip()
        start = content.find(needle)
        while needle and start >= 0:
            spans.add((start, len(needle)))
            start = content.find(needle, start + len(needle))
    return sorted(spans)


def heading_tip(c: k.ChunkSummary) -> str:
    """The whole heading path (the cell may cut it), then the start of the chunk's text."""
    return "\n".join(x for x in (" > ".join(c.heading_path), c.preview) if x)


CHUNK_COLUMNS: list[Column[k.ChunkSummary]] = [
    Column("chunks.col.ordinal", lambda c: f"#{c.number}"),
    Column("chunks.col.role", role_text),
    Column("chunks.col.heading", lambda c: " > ".join(c.heading_path), heading_tip),
    Column("chunks.col.locator", place),
    Column("chunks.col.characters", lambda c: str(c.character_count)),
    Column("chunks.col.enabled", lambda c: tr("chunks.on" if c.enabled else "chunks.off")),
    Column("chunks.col.edited", lambda c: tr("chunks.edited") if c.manually_edited else ""),
]


def family_note(chunk: k.ChunkSummary) -> str:
    """What a parent or a child chunk should know about its family (nothing for the rest)."""
    if chunk.role == "parent":
        return "ℹ " + tr("chunks.parent_note", count=chunk.child_count)
    if chunk.role == "child":
        return "ℹ " + tr("chunks.child_note", parent=chunk.parent_number)
    return ""


def document_text(info: k.ChunkDocumentInfo) -> str:
    """The document's chunk counts, and the chunks deleted by hand when there are any (the
    dialog says apart when none can be retrieved)."""
    text = tr(
        "chunks.info",
        title=info.title,
        retrievable=info.retrievable_chunks,
        total=info.total_chunks,
        edited=info.edited_chunks,
        disabled=info.disabled_chunks,
    )
    if info.deleted_chunks:
        text += tr("chunks.info.deleted", deleted=info.deleted_chunks)
    return text


def delete_text(chunk: k.ChunkSummary, path: str, info: k.ChunkDocumentInfo | None) -> str:
    """The question before deleting ``chunk``: what goes with a parent, whether it is the
    document's last retrievable chunk, and that a re-sync of a changed file re-creates chunks."""
    text = tr("chunks.delete.text", label=chunk_label(chunk), path=path)
    if chunk.role == "parent" and chunk.child_count:
        text += "\n\n" + tr("chunks.delete.parent", count=chunk.child_count)
    last = (
        info is not None
        and chunk.enabled
        and chunk.role != "parent"
        and info.retrievable_chunks == 1
    )
    if last:
        text += "\n\n" + tr("chunks.delete.last")
    return text + "\n\n⚠ " + tr("chunks.sync_warning")
