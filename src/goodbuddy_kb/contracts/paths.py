"""How a file name that is not valid UTF-8 is stored and travels, and how people read it.

On POSIX a file name is bytes. Python decodes the bytes that are not UTF-8 (names from archives
unpacked under an old Windows code page, say) to lone surrogates U+DC80–U+DCFF
(``surrogateescape``), which SQLite and JSON refuse to encode. Such a byte ``b`` is kept instead
as the plane-16 private-use character U+10FC00 + ``b``: valid UTF-8, so it can be stored and
sent, and reversible, so the backend opens exactly the file it listed. People see U+FFFD (�) in
its place: a marker that the name holds bytes that are not text.
"""

from __future__ import annotations

import re

_ESCAPE_BASE = 0x10FC00
_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPED = re.compile(f"[{chr(_ESCAPE_BASE + 0x80)}-{chr(_ESCAPE_BASE + 0xFF)}]")
REPLACEMENT = "\ufffd"


def wire_path(os_path: str) -> str:
    """``os_path`` (as ``os.fsdecode`` gives it) in a form SQLite and JSON accept, losslessly."""
    if not _SURROGATE.search(os_path):
        return os_path
    return _SURROGATE.sub(lambda m: chr(_ESCAPE_BASE + ord(m.group()) - 0xDC00), os_path)


def os_path(wire: str) -> str:
    """The name the operating system knows for ``wire`` (the inverse of :func:`wire_path`)."""
    if not _ESCAPED.search(wire):
        return wire
    return _ESCAPED.sub(lambda m: chr(0xDC00 + ord(m.group()) - _ESCAPE_BASE), wire)


def readable_path(wire: str) -> str:
    """``wire`` for people: each byte that is not text shown as �."""
    return _ESCAPED.sub(REPLACEMENT, wire) if _ESCAPED.search(wire) else wire


def has_undecodable_bytes(wire: str) -> bool:
    return bool(_ESCAPED.search(wire))


#: Between a message's path and an attachment's name in the path of the attachment's document
#: (``mails/a.eml//附件.xlsx``). No listed file's path holds an empty segment, so the form never
#: names a real file, and the folder scanner leaves such documents to their message.
ATTACHMENT_SEPARATOR = "//"


def attachment_path(message_path: str, name: str) -> str:
    """The document path of the attachment ``name`` of the message at ``message_path``."""
    return f"{message_path}{ATTACHMENT_SEPARATOR}{name}"


def message_of(path: str) -> str | None:
    """The path of the message an attachment document came from; None for any other document."""
    if path.startswith(("http://", "https://")):  # a web page's document path is its address
        return None
    message, separator, _name = path.partition(ATTACHMENT_SEPARATOR)
    return message if separator else None


def attachment_name(path: str) -> str:
    """The attachment's file name in an attachment document's path (``path`` otherwise)."""
    return path.partition(ATTACHMENT_SEPARATOR)[2] if message_of(path) is not None else path
