"""PPTX presentations: each slide's title as a heading, its text frames in reading order
(top to bottom, then left to right by shape position), its tables as table sections the chunker
splits by rows with the header repeated, and its speaker notes marked as notes — every section
located at its slide (``slide 7``).

The slide count is read from the ZIP directory and refused past ``limits.MAX_SLIDES`` before
python-pptx loads any slide; the archive's sizes are checked by ``limits.check_zip`` first.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from typing import Any

from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.model import Locator, ParsedDocument, ParseError, Section

MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
_SLIDE_PART = re.compile(r"ppt/slides/slide\d+\.xml")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def notes_label(text: str) -> str:
    """How speaker notes are marked: "备注" for notes in Chinese, "Notes" otherwise."""
    return "备注" if _CJK.search(text) else "Notes"


def notes_section(text: str, path: tuple[str, ...], locator: Locator) -> Section:
    """The speaker notes of a slide: under the slide's heading path plus the notes label, with
    the label leading the text too, so a question about the notes finds them as notes."""
    label = notes_label(text)
    limits.produce(sections=1, characters=len(text))
    return Section(
        f"{label}{'：' if label == '备注' else ': '}{text}", "paragraph", (*path, label), locator
    )


def table_section(rows: list[list[str]], path: tuple[str, ...], locator: Locator) -> Section | None:
    """A table as ``| a | b |`` lines with its first row as the header the chunker repeats."""
    lines = []
    for cells in rows:
        limits.check()
        cleaned = [" ".join(cell.split()) for cell in cells]
        if any(cleaned):
            lines.append("| " + " | ".join(cleaned) + " |")
    if not lines:
        return None
    limits.produce(sections=1, characters=sum(len(line) for line in lines))
    return Section("\n".join(lines), "table", path, locator, header_lines=1)


def check_slide_count(count: int) -> None:
    if count > limits.MAX_SLIDES:
        raise ParseError(
            f"the presentation has too many slides ({count}; at most {limits.MAX_SLIDES})"
        )


def _open(data: bytes) -> Any:
    from pptx import Presentation
    from pptx.exc import PackageNotFoundError

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            check_slide_count(sum(1 for n in archive.namelist() if _SLIDE_PART.fullmatch(n)))
            limits.check_zip(archive)
        return Presentation(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ParseError(f"the presentation could not be read ({exc.__class__.__name__})") from exc


def _reading_order(shapes: Any) -> Iterator[Any]:
    """Shapes top to bottom, then left to right; a group's shapes in their own order."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    ordered = sorted(shapes, key=lambda s: (s.top or 0, s.left or 0))
    for shape in ordered:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _reading_order(shape.shapes)
        else:
            yield shape


def _slide_sections(slide: Any, number: int) -> list[Section]:
    locator = Locator(slide=number)
    title_shape = slide.shapes.title
    title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
    path: tuple[str, ...] = (title,) if title else ()
    sections = [Section(title, "heading", path, locator)] if title else []
    for shape in _reading_order(slide.shapes):
        limits.check()
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if getattr(shape, "has_table", False):
            table = shape.table
            limits.check_table(len(table.columns), len(table.rows))
            rows = [[cell.text for cell in row.cells] for row in table.rows]
            section = table_section(rows, path, locator)
            if section is not None:
                sections.append(section)
        elif getattr(shape, "has_text_frame", False):
            lines = [p.text.strip() for p in shape.text_frame.paragraphs]
            text = "\n".join(line for line in lines if line)
            if text:
                limits.produce(sections=1, characters=len(text))
                sections.append(Section(text, "paragraph", path, locator))
    if slide.has_notes_slide:
        frame = slide.notes_slide.notes_text_frame
        notes = frame.text.strip() if frame is not None else ""
        if notes:
            sections.append(notes_section(notes, path, locator))
    return sections


def parse_pptx(data: bytes, title: str) -> ParsedDocument:
    presentation = _open(data)
    check_slide_count(len(presentation.slides))
    sections: list[Section] = []
    first_title = ""
    for number, slide in enumerate(presentation.slides, start=1):
        limits.check()
        slide_sections = _slide_sections(slide, number)
        if not first_title and slide_sections and slide_sections[0].block_type == "heading":
            first_title = slide_sections[0].text
        sections.extend(slide_sections)
    doc_title = (presentation.core_properties.title or "").strip()
    return ParsedDocument(doc_title or first_title or title, MEDIA_TYPE, sections)
