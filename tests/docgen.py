"""Small, dependency-free generators for real test documents (PDF) and python-docx files."""

from __future__ import annotations

import io


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], title: str = "") -> bytes:
    """A valid PDF with one text line per entry (Helvetica, ASCII), one page per list."""
    objects: list[bytes] = []
    page_ids = [4 + 2 * i for i in range(len(pages))]
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, lines in enumerate(pages):
        ops = ["BT", "/F1 11 Tf", "14 TL", "50 790 Td"]
        for line in lines:
            ops.append(f"({_escape(line)}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents {page_ids[i] + 1} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info_id = len(objects) + 1
    objects.append(f"<< /Title ({_escape(title)}) >>".encode())
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_id} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return out.getvalue()


def make_docx(blocks: list[tuple[str, object]]) -> bytes:
    """blocks: ("h1"|"h2"|"p", text) or ("table", [[cells], ...])."""
    from docx import Document

    document = Document()
    for kind, value in blocks:
        if kind.startswith("h"):
            document.add_heading(str(value), level=int(kind[1]))
        elif kind == "p":
            document.add_paragraph(str(value))
        elif kind == "table":
            rows = value
            assert isinstance(rows, list)
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for r, row in enumerate(rows):
                for c, cell in enumerate(row):
                    table.cell(r, c).text = str(cell)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def with_member(docx: bytes, name: str, content: bytes, compress: int | None = None) -> bytes:
    """``docx`` with the archive member ``name`` replaced by ``content``."""
    import zipfile

    source = zipfile.ZipFile(io.BytesIO(docx))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = content if info.filename == name else source.read(info.filename)
            target.writestr(info.filename, data, compress_type=compress)
    return out.getvalue()


def malformed_docx() -> dict[str, bytes]:
    """Word documents that broke the parser in the field, by what is wrong with them."""
    base = make_docx([("p", "正文段落 body paragraph")])
    body = f'<w:document xmlns:w="{W_NS}"><w:body>{{}}</w:body></w:document>'
    merged = (
        "<w:tbl><w:tblGrid><w:gridCol/></w:tblGrid><w:tr><w:tc><w:tcPr><w:vMerge/></w:tcPr>"
        "<w:p><w:r><w:t>orphan merge</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    )
    return {
        "syntax": with_member(base, "word/document.xml", b"<w:document><w:body><w:p>"),
        "empty-part": with_member(base, "word/document.xml", b""),
        "foreign-root": with_member(base, "word/document.xml", b"<foo/>"),
        "vmerge-without-row-above": with_member(
            base, "word/document.xml", body.format(merged).encode()
        ),
        "not-a-zip": b"PK\x03\x04" + b"\x00" * 200,
    }


def docx_bomb(expanded_mb: int, varied: bool = False) -> bytes:
    """A small DOCX whose document.xml expands to ``expanded_mb`` MB of paragraphs (``varied``:
    numbered ones, which compress far less, so only the parse time stops them)."""
    paragraph = b"<w:p><w:r><w:t>x</w:t></w:r></w:p>"
    count = expanded_mb * 1024 * 1024 // len(paragraph)
    paragraphs = (
        b"".join(b"<w:p><w:r><w:t>%d</w:t></w:r></w:p>" % (i * 7919) for i in range(count))
        if varied
        else paragraph * count
    )
    body = (
        f'<w:document xmlns:w="{W_NS}"><w:body>'.encode() + paragraphs + b"</w:body></w:document>"
    )
    return with_member(make_docx([("p", "bomb")]), "word/document.xml", body)
