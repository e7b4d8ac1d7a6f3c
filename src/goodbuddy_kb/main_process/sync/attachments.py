"""E-mail attachments as documents of their own.

An attachment's document path is its message's path, ``//`` and its name
(``contracts/paths.attachment_path``): never a real file's, so the folder scanner leaves it to
its message. It is parsed like a file of its type, under its own parse budget, titled with its
file name, and every chunk's locator names the message it came with (its subject).
"""

from __future__ import annotations

from dataclasses import replace

from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.paths import message_of
from goodbuddy_kb.main_process.parsing import ParsedDocument, ParseError, parse
from goodbuddy_kb.main_process.parsing.model import Attachment
from goodbuddy_kb.main_process.storage.documents import Known


def split_known(known: dict[str, Known]) -> tuple[dict[str, Known], dict[str, Known]]:
    """A source's known documents: (files and pages, attachments)."""
    files = {rel: k for rel, k in known.items() if message_of(rel) is None}
    return files, {rel: k for rel, k in known.items() if rel not in files}


def parse_attachment(attachment: Attachment) -> ParsedDocument:
    """The attachment as a document: its file's parser, its name as the title, and a locator
    back to its message on every section."""
    parsed = parse(attachment.data, attachment.name)
    return replace(parsed, title=attachment.name, attachments=(), message=attachment.message)


def find(message: ParsedDocument, name: str) -> Attachment:
    """The attachment named ``name`` in a parsed message; ParseError when it no longer has one."""
    for attachment in message.attachments:
        if attachment.name == name:
            return attachment
    raise ParseError(Reason("parse.attachment_gone"))
