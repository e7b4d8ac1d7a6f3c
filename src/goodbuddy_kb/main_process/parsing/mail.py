"""E-mail: one saved message (EML) or a mailbox of them (MBOX).

A message reads as its subject (the title), one header line (From, To, Date) and its text part
— or its HTML part through the HTML parser when it has no text part. Each attachment of a type
the backend reads (never a nested message or mailbox) is handed back beside the message
(``ParsedDocument.attachments``: its name, bytes and the message's subject) for the sync engine
to index as a document of its own, with a locator back to the message; at most
``limits.MAX_ATTACHMENTS`` per file (the document's note says how many more there were), names
made unique within it. Chinese mail decodes by its
declared charset, GB2312 and GBK read as their superset GB18030, encoded-word headers through
the ``email`` package's default policy. In a mailbox each message is a section headed by its
subject, and the attachments of all its messages come back together.
"""

from __future__ import annotations

import email
import re
from collections.abc import Callable
from dataclasses import replace
from email import policy
from email.message import EmailMessage, Message
from pathlib import PurePath

from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.main_process.parsing import limits
from goodbuddy_kb.main_process.parsing.html import parse_html
from goodbuddy_kb.main_process.parsing.model import (
    Attachment,
    ParsedDocument,
    ParseError,
    Section,
)
from goodbuddy_kb.main_process.parsing.text import paragraphs

MEDIA_TYPE = "message/rfc822"
MBOX_MEDIA_TYPE = "application/mbox"
#: Charsets mail clients label too narrowly: GB2312 mail routinely holds GBK characters.
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "gb_2312-80": "gb18030"}
#: Attachments a message is not read into (a nested mailbox or message could nest without end).
_NOT_NESTED = frozenset({".eml", ".mbox"})
_MBOX_FROM = re.compile(rb"^From .*\r?\n", re.MULTILINE)

ParserLookup = Callable[[str], "Callable[[bytes, str], ParsedDocument] | None"]


def _unreadable(why: str) -> ParseError:
    return ParseError(f"the e-mail could not be read ({why})")


def _part_text(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = (part.get_content_charset() or "utf-8").lower()
    charset = _WIDER.get(charset, charset)
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:
        return payload.decode("utf-8", errors="replace")


def _header(message: Message, name: str) -> str:
    try:
        value = message.get(name)
    except (ValueError, TypeError, IndexError):
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def _body(message: EmailMessage, path: tuple[str, ...]) -> list[Section]:
    text_part = message.get_body(preferencelist=("plain",))
    if text_part is not None:
        text = _part_text(text_part)
        return [Section(p, "paragraph", path) for p, _a, _b in paragraphs(text)]
    html_part = message.get_body(preferencelist=("html",))
    if html_part is None:
        return []
    markup = '<meta charset="utf-8">' + _part_text(html_part)
    document = parse_html(markup.encode("utf-8"), "")
    return [
        Section(s.text, s.block_type, path + s.heading_path, header_lines=s.header_lines)
        for s in document.sections
    ]


def _safe_name(name: str) -> str:
    """An attachment's name as one path segment: no separators, no control characters."""
    cleaned = "".join("_" if ch in "/\\" or ord(ch) < 32 else ch for ch in name).strip()
    return "" if not cleaned.strip(".") else cleaned


def _attachments(message: EmailMessage, lookup: ParserLookup, subject: str) -> list[Attachment]:
    """The attached files of a type the backend reads (their parsing is the sync engine's)."""
    found: list[Attachment] = []
    for part in message.iter_attachments():
        limits.check()
        name = _safe_name(part.get_filename() or "")
        suffix = PurePath(name).suffix.lower()
        if not name or suffix in _NOT_NESTED or lookup(suffix) is None:
            continue
        try:
            data = part.get_payload(decode=True)
        except (ValueError, TypeError, LookupError):  # a damaged part leaves the message readable
            continue
        if isinstance(data, bytes) and data.strip():
            found.append(Attachment(name, data, subject))
    return found


def _unique(attachments: list[Attachment]) -> tuple[Attachment, ...]:
    """The first ``MAX_ATTACHMENTS``, a repeated name numbered: 表.xlsx, 表 (2).xlsx."""
    seen: set[str] = set()
    unique: list[Attachment] = []
    for attachment in attachments[: limits.MAX_ATTACHMENTS]:
        name, path, number = attachment.name, PurePath(attachment.name), 1
        while name.casefold() in seen:
            number += 1
            name = f"{path.stem} ({number}){path.suffix}"
        seen.add(name.casefold())
        unique.append(replace(attachment, name=name))
    return tuple(unique)


def _document(
    title: str, media_type: str, sections: list[Section], attachments: list[Attachment]
) -> ParsedDocument:
    """The message or mailbox with its attachments, saying how many were past the limit."""
    left_out = len(attachments) - limits.MAX_ATTACHMENTS
    notes = (
        (Reason("parse.attachments_left_out", count=left_out, limit=limits.MAX_ATTACHMENTS),)
        if left_out > 0
        else ()
    )
    return ParsedDocument(
        title, media_type, sections, notes=notes, attachments=_unique(attachments)
    )


def _message(
    data: bytes, lookup: ParserLookup, nested: bool, title: str = ""
) -> tuple[str, list[Section], list[Attachment]]:
    """The subject, the sections (under a heading of its subject when ``nested`` in a mailbox)
    and the attachments of one message (``title`` names it when it has no subject)."""
    message = email.message_from_bytes(data, policy=policy.default)
    if not isinstance(message, EmailMessage) or not message.keys():
        raise _unreadable("no headers")
    subject = _header(message, "subject")
    path: tuple[str, ...] = (subject or "(no subject)",) if nested else ()
    sections = [Section(path[0], "heading", path)] if path else []
    line = " · ".join(
        f"{label}: {value}"
        for label, value in (
            ("From", _header(message, "from")),
            ("To", _header(message, "to")),
            ("Cc", _header(message, "cc")),
            ("Date", _header(message, "date")),
        )
        if value
    )
    if line:
        sections.append(Section(line, "paragraph", path))
        limits.produce(sections=1, characters=len(line))
    sections.extend(_body(message, path))
    return subject, sections, _attachments(message, lookup, subject or title or "(no subject)")


def make_email_parser(lookup: ParserLookup) -> Callable[[bytes, str], ParsedDocument]:
    """The EML parser; ``lookup`` finds the parser of an attachment's suffix (the registry's,
    so every format the backend reads is read inside a message too)."""

    def parse_eml(data: bytes, title: str) -> ParsedDocument:
        subject, sections, attachments = _message(data, lookup, nested=False, title=title)
        return _document(subject or title, MEDIA_TYPE, sections, attachments)

    return parse_eml


def starts_of_lines(data: bytes) -> list[int]:
    """Where each ``From `` separator line of a mailbox starts."""
    return [m.start() for m in _MBOX_FROM.finditer(data)]


def make_mbox_parser(lookup: ParserLookup) -> Callable[[bytes, str], ParsedDocument]:
    """The MBOX parser: every message a section headed by its subject."""

    def parse_mbox(data: bytes, title: str) -> ParsedDocument:
        starts = [m.end() for m in _MBOX_FROM.finditer(data)]
        if not starts or not data.startswith(b"From "):
            raise _unreadable("not a mailbox")
        ends = [*starts_of_lines(data)[1:], len(data)]
        sections: list[Section] = []
        attachments: list[Attachment] = []
        for start, end in zip(starts, ends, strict=True):
            limits.check()
            raw = re.sub(rb"(?m)^>(>*From )", rb"\1", data[start:end])
            try:
                _subject, read, attached = _message(raw, lookup, nested=True)
            except ParseError:
                continue
            sections.extend(read)
            attachments.extend(attached)
        return _document(title, MBOX_MEDIA_TYPE, sections, attachments)

    return parse_mbox
