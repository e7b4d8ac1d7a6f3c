"""Why a model connection form's values cannot be used, as the form says it: a validation
error's readable part, and a service address that holds credentials or a query."""

from __future__ import annotations

from pydantic import ValidationError

from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import invalid_request_from
from goodbuddy_kb.ui.i18n import tr
from goodbuddy_kb.ui.i18n.messages import say, say_text

#: What a form knows of its stored key: whether one is stored, and the origin it belongs to.
StoredKey = tuple[bool, str | None]


def capitalised(text: str) -> str:
    """A catalogue sentence shown on its own line starts with a capital (they are written to
    follow a colon: "⚠ the service address must not hold credentials…"; a helper's try)."""
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def problem(exc: ValueError) -> str:
    """The readable part of a validation error (no library footnotes), as a sentence."""
    if isinstance(exc, ValidationError) and exc.errors():
        first = invalid_request_from(exc).details["fields"][0]
        return capitalised(say(first.get("code"), first.get("params"), str(first["problem"])))
    return capitalised(str(exc))


def address_problem(url: str) -> str | None:
    """Why a service address cannot be saved (it holds credentials or a query), as the form
    shows it, or None. The "where your text goes" line said it "will be sent to
    http://user:secret@…", repeating the key, until Save refused it (a helper's try)."""
    try:
        m.check_service_url(url or None)
    except ValueError as exc:
        return "⚠ " + capitalised(say_text(str(exc)))
    return None


def key_placeholder(stored: StoredKey | None, url: str) -> str:
    """The write-only key field's grey text for the address in the form: a key stored for another
    origin is not sent there on its own, and the field says so before Test or Save would refuse
    it (``main_process/key_origin.py``). None until the saved settings arrive: nothing is said
    yet (the grey text is how a test knows they have arrived)."""
    if stored is None:
        return ""
    has_key, origin = stored
    if not has_key:
        return tr("conn.key.none")
    target = m.service_origin(url)
    if origin and target and target != origin:
        return tr("conn.key.elsewhere", origin=origin)
    return tr("conn.key.stored")
