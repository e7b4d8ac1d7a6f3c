"""`goodbuddy-kb model …`: the model connections, as Settings → Model connections shows, changes
and tests them, so that a library can be set up without the window (the command line's own
messages pointed to that page for a chat model or a rerank service).

    goodbuddy-kb model show
    goodbuddy-kb model embedding|chat|rerank [--provider P] [--url URL] [--model NAME] … [--test]
    goodbuddy-kb model list chat|embedding [--provider P] [--url URL]

An option given changes that field of the saved connection and leaves the others as they are;
without options the connection is shown. A key is never an argument (argument lists are visible
to other users of the machine and kept in shell history): ``--key-env VAR`` reads it from an
environment variable, ``--key-stdin`` from standard input; ``--forget-key`` removes the stored
one. Keys are stored where the window stores them, and never printed."""

from __future__ import annotations

import argparse
import getpass
import os
import re
import sys
from typing import Any

from pydantic import ValidationError

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli.output import EXIT_ERROR, emit, plain
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_MODEL_TEST,
    CHAT_MODEL_UPDATE,
    EMBEDDING_GET,
    EMBEDDING_TEST,
    EMBEDDING_UPDATE,
    LIBRARY_LIST,
    MODELS_LIST,
    RERANK_GET,
    RERANK_TEST,
    RERANK_UPDATE,
    VECTORS_STATUS,
)

PROVIDERS = {
    "embedding": ["local", "openai-compatible", "ollama", "none"],
    "chat": ["none", "openai-compatible", "ollama"],
}
#: A connection's field → the option that sets it (a refusal names the option).
OPTIONS = {
    "kind": "--provider",
    "base_url": "--url",
    "model": "--model",
    "dimensions": "--dimensions",
    "batch_size": "--batch-size",
    "timeout_s": "--timeout",
}
#: Each connection's contract.
CONNECTIONS: dict[str, type[Any]] = {
    "embedding": m.EmbeddingConnection,
    "chat": ch.ChatConnection,
    "rerank": m.RerankConnection,
}
#: An environment variable's name.
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Where each provider listens unless told otherwise (as the window fills it in).
DEFAULT_URL = {"ollama": "http://127.0.0.1:11434"}


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "model", help="show, set up or test the embedding, chat and rerank model connections"
    )
    cmds = p.add_subparsers(dest="action", required=True)
    cmds.add_parser("show", parents=[common], help="every model connection and where text goes")
    helps = {
        "embedding": "show or change the embedding model (semantic search)",
        "chat": "show or change the chat model that answers questions",
        "rerank": "show or change the Cohere/Jina-compatible rerank service (learned rerank)",
    }
    for purpose, text in helps.items():
        q = cmds.add_parser(purpose, parents=[common], help=text)
        if purpose in PROVIDERS:
            q.add_argument("--provider", choices=PROVIDERS[purpose], help="the kind of service")
        q.add_argument("--url", metavar="URL", help="the service's address (http:// or https://)")
        q.add_argument("--model", metavar="NAME", help="the model's name at that service")
        q.add_argument("--timeout", type=float, metavar="SECONDS", help="how long to wait")
        if purpose == "embedding":
            q.add_argument("--dimensions", type=int, metavar="N", help="ask for N dimensions")
            q.add_argument("--batch-size", type=int, metavar="N", help="texts per request")
        if purpose == "rerank":
            q.add_argument("--off", action="store_true", help="remove the rerank service")
        _key_options(q, forget=True)
        q.add_argument(
            "--test",
            action="store_true",
            help="call the service once; with changes, they are saved only if it answers",
        )
    lst = cmds.add_parser(
        "list", parents=[common], help="the models a service offers (/v1/models, Ollama's tags)"
    )
    lst.add_argument("purpose", choices=["chat", "embedding"])
    lst.add_argument(
        "--provider",
        choices=["openai-compatible", "ollama"],
        help="the kind of service (default: the saved connection's, when it is one of these)",
    )
    lst.add_argument("--url", metavar="URL", help="default: the saved connection's address")
    _key_options(lst, forget=False)


def _key_options(p: argparse.ArgumentParser, forget: bool) -> None:
    keys = p.add_mutually_exclusive_group()
    keys.add_argument("--key-env", metavar="VAR", help="read the API key from this variable")
    keys.add_argument("--key-stdin", action="store_true", help="read the API key from stdin")
    if forget:
        keys.add_argument("--forget-key", action="store_true", help="remove the stored API key")


def _key(args: argparse.Namespace) -> str | None:
    """The key the options give: None keeps the stored one, "" removes it."""
    if getattr(args, "forget_key", False):
        return ""
    if args.key_env:
        if not VARIABLE.fullmatch(args.key_env):
            # never echoed: what was given may be the key itself, not a variable's name
            raise InvalidRequestError(
                "--key-env: give the name of an environment variable that holds the key"
                " (letters, digits and _), not the key"
            )
        value = os.environ.get(args.key_env)
        if value is None:
            raise InvalidRequestError(f"--key-env: the variable {args.key_env} is not set")
        if not value.strip():
            raise InvalidRequestError(f"--key-env: the variable {args.key_env} is empty")
        return value.strip()
    if args.key_stdin:
        value = getpass.getpass("API key: ") if sys.stdin.isatty() else sys.stdin.readline()
        if not value.strip():
            raise InvalidRequestError("--key-stdin: no key was given")
        return value.strip()
    return None


def _changes(args: argparse.Namespace) -> dict[str, Any]:
    given = {
        "kind": getattr(args, "provider", None),
        "base_url": args.url,
        "model": args.model,
        "dimensions": getattr(args, "dimensions", None),
        "batch_size": getattr(args, "batch_size", None),
        "timeout_s": args.timeout,
    }
    changes = {k: v for k, v in given.items() if v is not None}
    if getattr(args, "off", False):
        changes.update(base_url=None, model=None)
    return changes


def _connection(kind: type[Any], current: Any, changes: dict[str, Any]) -> Any:
    """The saved connection with ``changes``, checked as the window's form is."""
    wire = {**current.model_dump(), **changes}
    switched = changes.get("kind") in DEFAULT_URL and "base_url" not in changes
    if switched and (current.kind != changes["kind"] or not wire.get("base_url")):
        wire["base_url"] = DEFAULT_URL[changes["kind"]]
    if wire.get("kind") in ("openai-compatible", "ollama"):
        if not wire.get("base_url"):
            raise InvalidRequestError(f"--url: {wire['kind']} needs the service's address")
        if not wire.get("model"):
            raise InvalidRequestError(
                f"--model: {wire['kind']} needs the model's name (`goodbuddy-kb model list"
                " chat|embedding` lists those the service offers)"
            )
    try:
        return kind.model_validate(wire)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][-1]) if error["loc"] else ""
        where = OPTIONS.get(field, "")
        message = plain(str(error["msg"]))
        raise InvalidRequestError(f"{where}: {message}" if where else message) from None


def _shown(purpose: str, info: Any) -> str:
    conn = info.connection
    key = "an API key is stored" if info.has_api_key else "no API key"
    if purpose == "embedding":
        # a local or switched-off model keeps the remote fields for a switch back: not shown
        remote = conn.kind in ("openai-compatible", "ollama")
        parts = [conn.kind, *((conn.model or "", conn.base_url or "") if remote else ())]
        parts += [str(info.data_path), key if remote else ""]
    elif purpose == "chat":
        if conn.kind == "none":
            return "chat       none: a question lists the passages found (no model answers)"
        parts = [conn.kind, conn.model or "", conn.base_url or "", key]
        parts.append("questions and the passages found are sent there")
    else:
        if not info.configured:
            return "rerank     not set up: learned rerank falls back to the local rerank"
        parts = [conn.model or "", conn.base_url or "", key]
        parts.append("questions and the candidate passages are sent there")
    return f"{purpose:<10} " + "  ".join(p for p in parts if p)


def _get(session: Session, purpose: str) -> Any:
    call = session.client.call
    if purpose == "embedding":
        return call(EMBEDDING_GET, m.EmbeddingGetRequest())
    if purpose == "chat":
        return call(CHAT_MODEL_GET, ch.ChatGetRequest())
    return call(RERANK_GET, m.RerankGetRequest())


def cmd_model(args: argparse.Namespace, session: Session) -> int:
    if args.action == "show":
        infos = {p: _get(session, p) for p in ("embedding", "chat", "rerank")}
        emit(
            args,
            {p: i.to_wire() for p, i in infos.items()},
            "\n".join(_shown(p, i) for p, i in infos.items()),
        )
        return 0
    if args.action == "list":
        return _list(args, session)
    purpose = args.action
    info = _get(session, purpose)
    changes, key = _changes(args), _key(args)
    if not changes and key is None:
        lines = [_shown(purpose, info)]
        ok = True
        if args.test:
            ok, said = _test(session, purpose, None, None)
            lines.append(said)
        emit(args, {**info.to_wire(), **({"testOk": ok} if args.test else {})}, "\n".join(lines))
        return 0 if ok else EXIT_ERROR
    connection = _connection(CONNECTIONS[purpose], info.connection, changes)
    tested: list[str] = []
    if args.test and _testable(purpose, connection):
        # as the window's Save: the new settings are called first and saved only if they answer
        # (a failed test used to leave them saved, turning a working setup off)
        ok, said = _test(session, purpose, connection, key)
        tested.append(said)
        if not ok:
            lines = [_shown(purpose, info), said, "nothing was saved; the connection is as above"]
            emit(args, {**info.to_wire(), "testOk": False, "saved": False}, "\n".join(lines))
            return EXIT_ERROR
    elif args.test:
        tested.append("nothing to test: no service is set up")
    info = _update(session, purpose, connection, key)
    lines = [_shown(purpose, info), *tested]
    if purpose == "embedding":
        lines += _stale_indexes(session, connection.kind)
    extra = {"testOk": True} if args.test else {}
    emit(args, {**info.to_wire(), **extra, "saved": True}, "\n".join(lines))
    return 0


def _testable(purpose: str, connection: Any) -> bool:
    """Whether there is a service to call (the window's rule: "none" and an empty rerank
    address have nothing to test)."""
    if purpose == "rerank":
        return bool(connection.base_url)
    return bool(connection.kind != "none")


def _update(session: Session, purpose: str, connection: Any, key: str | None) -> Any:
    call = session.client.call
    if purpose == "embedding":
        return call(EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=connection, api_key=key))
    if purpose == "chat":
        return call(CHAT_MODEL_UPDATE, ch.ChatUpdateRequest(connection=connection, api_key=key))
    return call(RERANK_UPDATE, m.RerankUpdateRequest(connection=connection, api_key=key))


def _stale_indexes(session: Session, kind: str) -> list[str]:
    """What the change does to the libraries' vectors: with no embedding model, semantic search
    is off everywhere (rebuilding cannot help); else each library whose vectors another model
    made is named, as they are not searched until made again."""
    call = session.client.call
    if kind == "none":
        return [
            "semantic search is off: every library searches by full text (and its knowledge"
            " graph) only; its vectors are kept for a switch back"
        ]
    out = []
    for library in call(LIBRARY_LIST, lib.LibraryListRequest()).libraries:
        status = call(VECTORS_STATUS, m.VectorStatusRequest(library_id=library.id))
        if status.state != "none" and not status.compatible and status.vectors:
            out.append(
                f"{library.name}: its vectors were made by {status.model_label or 'another model'};"
                f" semantic search is off there until `goodbuddy-kb rebuild {library.id}"
                " --vectors` makes them again"
            )
    return out


def _test(session: Session, purpose: str, connection: Any, key: str | None) -> tuple[bool, str]:
    """Call the service once (``connection`` None: the saved one); nothing is saved."""
    call = session.client.call
    if purpose == "embedding":
        emb = call(EMBEDDING_TEST, m.EmbeddingTestRequest(connection=connection, api_key=key))
        said = f"ok, {emb.dimensions} dimensions in {emb.latency_ms or 0:.0f} ms"
        return emb.ok, f"test: {said}" if emb.ok else f"test failed: {emb.error}"
    if purpose == "chat":
        chat = call(CHAT_MODEL_TEST, ch.ChatTestRequest(connection=connection, api_key=key))
        reply = " ".join((chat.reply or "").split())[:80]
        said = f"ok, {chat.model} answered in {chat.latency_ms or 0:.0f} ms: {reply}"
        return chat.ok, f"test: {said}" if chat.ok else f"test failed: {chat.error}"
    rerank = call(RERANK_TEST, m.RerankTestRequest(connection=connection, api_key=key))
    said = f"ok in {rerank.latency_ms or 0:.0f} ms"
    return rerank.ok, f"test: {said}" if rerank.ok else f"test failed: {rerank.error}"


def _list(args: argparse.Namespace, session: Session) -> int:
    saved = _get(session, args.purpose).connection
    kind = args.provider or (saved.kind if saved.kind in ("openai-compatible", "ollama") else None)
    if kind is None:
        raise InvalidRequestError(
            f"--provider: the saved {args.purpose} connection is {saved.kind}, which lists no"
            " models; give openai-compatible or ollama"
        )
    url = args.url or (saved.base_url if saved.kind == kind else None) or DEFAULT_URL.get(kind)
    if not url:
        raise InvalidRequestError("--url: give the service's address")
    res = session.client.call(
        MODELS_LIST,
        m.ModelListRequest(purpose=args.purpose, kind=kind, base_url=url, api_key=_key(args)),
    )
    if not res.ok:
        emit(args, res.to_wire(), f"cannot list the models at {url}: {res.error}")
        return EXIT_ERROR
    emit(args, res.to_wire(), "\n".join(res.models) or f"{url} offers no models")
    return 0
