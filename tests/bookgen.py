"""Generators for real EPUB books (written by ebooklib) and e-mail (written by the standard
library's ``email`` package), for the e-book and mail parser tests."""

from __future__ import annotations

import io
import tempfile
import zipfile
from email.message import EmailMessage
from email.policy import default
from pathlib import Path


def make_epub(title: str, chapters: list[tuple[str, str]], language: str = "zh") -> bytes:
    """An EPUB 3 book whose chapters are (title, body HTML), in this spine order."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier(f"id-{title}")
    book.set_title(title)
    book.set_language(language)
    items = []
    for number, (heading, body) in enumerate(chapters, start=1):
        item = epub.EpubHtml(title=heading, file_name=f"chap_{number}.xhtml", lang=language)
        item.content = f"<h1>{heading}</h1>{body}"
        book.add_item(item)
        items.append(item)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "book.epub"
        epub.write_epub(str(path), book)
        return path.read_bytes()


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
