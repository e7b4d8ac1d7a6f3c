"""Real presentations and documents for the slide, OpenDocument and RTF tests: PPTX written by
python-pptx, ODT and ODP by odfpy; RTF by hand (no maintained Python library writes it)."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

#: One slide: title, text boxes (text, left cm, top cm), a table (rows) and speaker notes.
Slide = dict[str, Any]


def make_pptx(slides: list[Slide], title: str = "") -> bytes:
    from pptx import Presentation
    from pptx.util import Cm

    deck = Presentation()
    deck.core_properties.title = title
    for spec in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[5])  # "Title Only"
        if spec.get("title"):
            slide.shapes.title.text = spec["title"]
        for text, left, top in spec.get("boxes", []):
            box = slide.shapes.add_textbox(Cm(left), Cm(top), Cm(6), Cm(2))
            box.text_frame.text = text
        if spec.get("table"):
            rows = spec["table"]
            shape = slide.shapes.add_table(len(rows), len(rows[0]), Cm(1), Cm(12), Cm(20), Cm(4))
            for r, row in enumerate(rows):
                for c, value in enumerate(row):
                    shape.table.cell(r, c).text = value
        if spec.get("notes"):
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def with_member(archive: bytes, name: str, content: bytes) -> bytes:
    """``archive`` with one more member (deflated)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info, src.read(info.filename))
        dst.writestr(name, content, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def pptx_with_slides(count: int) -> bytes:
    """A python-pptx deck whose one slide is repeated ``count`` times (python-pptx takes
    minutes to add 10,000 slides one by one; the copies are its own parts, renamed)."""
    one = make_pptx([{"title": "Copy", "boxes": [("copied slide", 1, 5)]}])
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(one)) as src, zipfile.ZipFile(out, "w") as dst:
        slide = src.read("ppt/slides/slide1.xml")
        rels = src.read("ppt/slides/_rels/slide1.xml.rels")
        types = src.read("[Content_Types].xml").decode()
        override = re.search(r'<Override PartName="/ppt/slides/slide1\.xml"[^>]*/>', types)
        assert override is not None
        extra = "".join(
            override.group(0).replace("slide1.xml", f"slide{n}.xml") for n in range(2, count + 1)
        )
        pres_rels = src.read("ppt/_rels/presentation.xml.rels").decode()
        rel = re.search(r'<Relationship [^>]*Target="slides/slide1\.xml"[^>]*/>', pres_rels)
        assert rel is not None
        rid = re.search(r'Id="(rId\d+)"', rel.group(0))
        assert rid is not None
        new_rels = "".join(
            rel.group(0).replace("slide1.xml", f"slide{n}.xml").replace(rid.group(1), f"rIdS{n}")
            for n in range(2, count + 1)
        )
        pres = src.read("ppt/presentation.xml").decode()
        ids = "".join(f'<p:sldId id="{1000 + n}" r:id="rIdS{n}"/>' for n in range(2, count + 1))
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "[Content_Types].xml":
                data = types.replace("</Types>", extra + "</Types>").encode()
            elif info.filename == "ppt/_rels/presentation.xml.rels":
                data = pres_rels.replace("</Relationships>", new_rels + "</Relationships>").encode()
            elif info.filename == "ppt/presentation.xml":
                data = pres.replace("</p:sldIdLst>", ids + "</p:sldIdLst>").encode()
            dst.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)
        for n in range(2, count + 1):
            dst.writestr(f"ppt/slides/slide{n}.xml", slide, compress_type=zipfile.ZIP_DEFLATED)
            dst.writestr(
                f"ppt/slides/_rels/slide{n}.xml.rels", rels, compress_type=zipfile.ZIP_DEFLATED
            )
    return out.getvalue()


def _odf_bytes(document: Any) -> bytes:
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def make_odt(blocks: list[tuple[str, Any]]) -> bytes:
    """Blocks: ("h1"/"h2", text), ("p", text), ("table", rows)."""
    from odf.opendocument import OpenDocumentText
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import H, P

    document = OpenDocumentText()
    for kind, value in blocks:
        if kind.startswith("h"):
            document.text.addElement(H(outlinelevel=int(kind[1:]), text=value))
        elif kind == "p":
            document.text.addElement(P(text=value))
        elif kind == "table":
            table = Table(name="T")
            table.addElement(TableColumn(numbercolumnsrepeated=len(value[0])))
            for row in value:
                tr = TableRow()
                for cell_text in row:
                    cell = TableCell()
                    cell.addElement(P(text=cell_text))
                    tr.addElement(cell)
                table.addElement(tr)
            document.text.addElement(table)
    return _odf_bytes(document)


def make_odp(slides: list[Slide]) -> bytes:
    """Slides as for ``make_pptx``: a title frame, text boxes at (left, top), a table, notes."""
    from odf.draw import Frame, Page, TextBox
    from odf.namespaces import PRESENTATIONNS
    from odf.opendocument import OpenDocumentPresentation
    from odf.presentation import Notes
    from odf.style import MasterPage, PageLayout
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentPresentation()
    layout = PageLayout(name="L")
    document.automaticstyles.addElement(layout)
    master = MasterPage(name="M", pagelayoutname=layout)
    document.masterstyles.addElement(master)

    def frame(left: float, top: float, texts: list[str], cls: str = "") -> Any:
        box_frame = Frame(x=f"{left}cm", y=f"{top}cm", width="6cm", height="2cm")
        if cls:
            box_frame.setAttrNS(PRESENTATIONNS, "class", cls)
        box = TextBox()
        for text in texts:
            box.addElement(P(text=text))
        box_frame.addElement(box)
        return box_frame

    for number, spec in enumerate(slides, start=1):
        page = Page(name=f"page{number}", masterpagename=master)
        # Written bottom-up on purpose: the reader orders frames by position.
        for text, left, top in reversed(spec.get("boxes", [])):
            page.addElement(frame(left, top, [text]))
        if spec.get("table"):
            table_frame = Frame(x="1cm", y="12cm", width="20cm", height="4cm")
            table = Table()
            for row in spec["table"]:
                tr = TableRow()
                for value in row:
                    cell = TableCell()
                    cell.addElement(P(text=value))
                    tr.addElement(cell)
                table.addElement(tr)
            table_frame.addElement(table)
            page.addElement(table_frame)
        if spec.get("title"):
            page.addElement(frame(1, 1, [spec["title"]], "title"))
        if spec.get("notes"):
            notes = Notes()
            notes.addElement(frame(1, 1, [spec["notes"]], "notes"))
            page.addElement(notes)
        document.presentation.addElement(page)
    return _odf_bytes(document)


def rtf_escaped(text: str, code_page: str = "gbk") -> str:
    """``text`` as RTF \\'xx escapes in ``code_page`` (ASCII kept)."""
    return "".join(
        char if ord(char) < 128 else "".join(f"\\'{b:02x}" for b in char.encode(code_page))
        for char in text
    )


def rtf_unicode(text: str) -> str:
    """``text`` as RTF \\uN? escapes (ASCII kept)."""
    return "".join(
        char if ord(char) < 128 else f"\\u{ord(char) - 65536 if ord(char) > 32767 else ord(char)}?"
        for char in text
    )


def make_rtf(paragraphs: list[str]) -> bytes:
    """A Word-like RTF header (GBK code page, a Chinese font) around ready-escaped paragraphs."""
    head = (
        r"{\rtf1\ansi\ansicpg936\deff0{\fonttbl{\f0\fnil\fcharset134 SimSun;}}"
        r"\viewkind4\uc1\pard\f0\fs24 "
    )
    return (head + "".join(p + r"\par" + "\n" for p in paragraphs) + "}").encode("ascii")
