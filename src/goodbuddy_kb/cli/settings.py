"""`goodbuddy-kb library settings LIB [--set KEY=VALUE]…`: a library's settings from the command
line, as the window's Settings tab shows and changes them (retrieval, chunking, contextual
indexing, OCR, external access, the assistant's instructions). Keys are the names ``--json``
prints (``retrieval.topK``, ``chunking.targetCharacters``, ``ocrEnabled``); a value is read as
JSON where it is JSON (``8``, ``true``, ``"text"``) and as text otherwise. Every value is checked
against the same contracts as the window's, and a refusal names the key."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import emit, plain
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import SETTINGS_GET, SETTINGS_UPDATE
from goodbuddy_kb.contracts.settings import KnowledgeChunkingSettings, KnowledgeRetrievalSettings

#: The settings a person changes: the name ``--json`` gives each → the request's field.
SECTIONS = {
    "retrieval": "retrieval",
    "chunking": "chunking",
    "contextualIndexing": "contextual_indexing",
    "ocrEnabled": "ocr_enabled",
    "externalAccess": "external_access",
    "assistantInstructions": "assistant_instructions",
}
#: Shown, never set (they say what the library's state is).
READ_ONLY = ("settingsPendingRebuild", "keptOldChunks", "libraryId")


def add_parser(actions: Any, common: argparse.ArgumentParser) -> None:
    p = actions.add_parser(
        "settings",
        parents=[common],
        help="show a library's settings, or change them with --set KEY=VALUE",
    )
    p.add_argument("library", metavar="LIB")
    p.add_argument(
        "--set",
        dest="changes",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change one setting, named as the listing names it (retrieval.topK=8,"
        " chunking.targetCharacters=1200, ocrEnabled=false); repeat for more",
    )


def _lines(wire: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for key, value in wire.items():
        if key in READ_ONLY or key == "version":
            continue
        if isinstance(value, dict):
            out += _lines(value, f"{prefix}{key}.")
        else:
            out.append(f"{prefix}{key} = {json.dumps(value, ensure_ascii=False)}")
    return out


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _apply(wire: dict[str, Any], change: str) -> str:
    """Set one ``KEY=VALUE`` in ``wire``; returns the section it changed."""
    key, sep, text = change.partition("=")
    key = key.strip()
    section, _dot, field = key.partition(".")
    known = [line.split(" = ")[0] for line in _lines(wire)]
    if not sep or key not in known:
        raise InvalidRequestError(
            f"unknown setting “{key}”: give KEY=VALUE with one of {', '.join(known)}"
            if sep
            else f"“{change}” is not KEY=VALUE"
        )
    if field:
        wire[section][field] = _value(text.strip())
    else:
        wire[section] = _value(text.strip())
    return section


def _request(library_id: str, wire: dict[str, Any], changed: set[str]) -> c.SettingsUpdateRequest:
    """The update of the changed sections, each checked as the window's form is."""
    parts: dict[str, Any] = {}
    for section in sorted(changed):
        value = wire[section]
        try:
            if section == "retrieval":
                value = KnowledgeRetrievalSettings.model_validate(value)
            elif section == "chunking":
                value = KnowledgeChunkingSettings.model_validate(value)
            parts[SECTIONS[section]] = value
            c.SettingsUpdateRequest(library_id=library_id, **parts)
        except ValidationError as exc:
            error = exc.errors()[0]
            inner = [str(x) for x in error["loc"] if str(x) not in (section, SECTIONS[section])]
            message = plain(str(error["msg"]))
            raise InvalidRequestError(f"{'.'.join([section, *inner])}: {message}") from None
    return c.SettingsUpdateRequest(library_id=library_id, **parts)


def cmd_settings(args: argparse.Namespace, session: Session, library_id: str) -> int:
    call = session.client.call
    current = call(SETTINGS_GET, c.SettingsGetRequest(library_id=library_id))
    if args.changes:
        wire = current.to_wire()
        changed = {_apply(wire, change) for change in args.changes}
        current = call(SETTINGS_UPDATE, _request(library_id, wire, changed))
    lines = _lines(current.to_wire())
    if current.settings_pending_rebuild:
        lines.append(
            "(the chunking settings changed: `goodbuddy-kb rebuild LIB` applies them; until then"
            " the documents keep their chunks)"
        )
    emit(args, current.to_wire(), "\n".join(lines))
    return 0
