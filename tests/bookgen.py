"""Generators for real EPUB books (an EPUB 3 package written part by part) and e-mail (written by the standard
library's ``email`` package), for the e-book and mail parser tests."""

from __future__ import annotations

import io
import zipfile
from email.message import EmailMessage
from email.policy import default


def make_epub(title: str, chapters: list[tuple[str, str]], language: str = "zh") -> bytes:
    """An EPUB 3 book whose chapters are (title, body HTML), in this spine order, as a reading
    system expects it: the stored ``mimetype`` first, the container, an OPF package under
    ``EPUB/``, a navigation document (first in the spine, as many books have it) and an NCX."""
    heads = [(f"chap_{n}.xhtml", heading, body) for n, (heading, body) in enumerate(chapters, 1)]
    xhtml = (
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"'
        f' lang="{language}" xml:lang="{language}"><head><title>{{title}}</title></head>'
        "<body>{body}</body></html>"
    )
    nav_items = "".join(f'<li><a href="{name}">{heading}</a></li>' for name, heading, _ in heads)
    nav = xhtml.format(
        title=title, body=f'<nav epub:type="toc" id="id"><h2>{title}</h2><ol>{nav_items}</ol></nav>'
    )
    points = "".join(
        f'<navPoint id="p{n}"><navLabel><text>{heading}</text></navLabel>'
        f'<content src="{name}"/></navPoint>'
        for n, (name, heading, _) in enumerate(heads, 1)
    )
    ncx = (
        '<?xml version="1.0" encoding="utf-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"'
        f' version="2005-1"><head/><docTitle><text>{title}</text></docTitle>'
        f"<navMap>{points}</navMap></ncx>"
    )
    manifest = "".join(
        f'<item id="chapter_{n}" href="{name}" media-type="application/xhtml+xml"/>'
        for n, (name, _, _) in enumerate(heads, 1)
    )
    spine = "".join(f'<itemref idref="chapter_{n}"/>' for n in range(1, len(heads) + 1))
    opf = (
        '<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://www.idpf.org/2007/opf"'
        ' unique-identifier="id" version="3.0"><metadata'
        ' xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="id">id-{title}</dc:identifier><dc:title>{title}</dc:title>'
        f"<dc:language>{language}</dc:language></metadata><manifest>"
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>'
        f'{manifest}</manifest><spine toc="ncx"><itemref idref="nav"/>{spine}</spine></package>'
    )
    container = (
        '<?xml version="1.0" encoding="utf-8"?>\n<container version="1.0"'
        ' xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
        '<rootfile full-path="EPUB/content.opf" media-type="application/oebps-package+xml"/>'
        "</rootfiles></container>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as book:
        book.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", container)
        book.writestr("EPUB/content.opf", opf)
        book.writestr("EPUB/nav.xhtml", nav)
        book.writestr("EPUB/toc.ncx", ncx)
        for name, heading, body in heads:
            book.writestr(
                f"EPUB/{name}", xhtml.format(title=heading, body=f"<h1>{heading}</h1>{body}")
            )
    return out.getvalue()


def epub_bomb(expanded_mb: int) -> bytes:
    """A small EPUB whose first chapter expands to ``expanded_mb`` MB of one repeated paragraph."""
    base = make_epub("Bomb", [("Boom", "<p>bomb</p>")], "en")
    body = b"<html><body>" + b"<p>x</p>" * (expanded_mb * 1024 * 1024 // 8) + b"</body></html>"
    source = zipfile.ZipFile(io.BytesIO(base))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = body if info.filename.endswith("chap_1.xhtml") else source.read(info.filename)
            target.writestr(info.filename, data)
    return out.getvalue()


def make_eml(
    subject: str,
    text: str | None,
    *,
    html: str | None = None,
    charset: str = "utf-8",
    attachments: list[tuple[str, bytes]] = (),  # type: ignore[assignment]
) -> bytes:
    """A message from 张三 to the team, with a text part (in ``charset``), an HTML part and
    attachments (name, bytes)."""
    message = EmailMessage(policy=default)
    message["Subject"] = subject
    message["From"] = "张三 <zhang.san@example.com>"
    message["To"] = "Team <team@example.com>"
    message["Date"] = "Tue, 01 Dec 2026 09:30:00 +0800"
    if text is not None:
        message.set_content(text, charset=charset)
    if html is not None:
        if text is None:
            message.set_content(html, subtype="html", charset=charset)
        else:
            message.add_alternative(html, subtype="html", charset=charset)
    for name, data in attachments:
        message.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return message.as_bytes()
