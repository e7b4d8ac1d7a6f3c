"""The `goodbuddy-kb` command: no arguments starts the GUI; subcommands drive the same bridge.

    goodbuddy-kb library create NAME        goodbuddy-kb library rename LIB NAME
    goodbuddy-kb library list               goodbuddy-kb library delete LIB --yes
    goodbuddy-kb library settings LIB [--set KEY=VALUE]…
    goodbuddy-kb source add LIB PATH|URL    goodbuddy-kb sync LIB
    goodbuddy-kb documents LIB              goodbuddy-kb tasks [LIB]
    goodbuddy-kb rebuild LIB [--document PATH_OR_ID]
    goodbuddy-kb graph entities|relations|status|extract LIB   goodbuddy-kb graph show LIB NAME
    goodbuddy-kb graph ontology LIB export|import FILE
    goodbuddy-kb chunks LIB DOC [--search TEXT]
    goodbuddy-kb chunk show|edit|enable|disable|delete LIB DOC CHUNK
    goodbuddy-kb retrieve LIB… "question" [--top-k N] [--rerank off|local|learned]
    goodbuddy-kb mcp [--library LIB]…       (an MCP server on stdio for other AI tools)
    goodbuddy-kb diagnostics export FILE    goodbuddy-kb diagnostics show
    goodbuddy-kb chat ask "question" [--library LIB]… [--mode always|auto] [--conversation ID]
    goodbuddy-kb chat list [--query Q]      goodbuddy-kb chat show|rename|delete ID [TITLE]
    goodbuddy-kb chat export ID --format markdown|html --out PATH [--overwrite]
    goodbuddy-kb model show                 goodbuddy-kb model list chat|embedding
    goodbuddy-kb model embedding|chat|rerank [--provider P] [--url URL] [--model NAME] [--test]
    goodbuddy-kb notices                    goodbuddy-kb --version

LIB is a library id or its exact name. ``--json`` prints machine-readable output; ``--data-dir``
(or GOODBUDDY_DATA_DIR) chooses the data directory.

The parser is `parser.py`; each command group has its module (`libraries`, `sources`,
`retrieve`, `tasks`, `rebuild`, `graph`, `chunks`, `diagnostics`, `chat`, `models`, `eval`, `mcp`,
`about`),
over the shared `output` (printing, exit codes), `resolve` (LIB and DOC to ids) and `tasks`
(following tasks). `main` here dispatches to them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence

from pydantic import ValidationError

from goodbuddy_kb.bridge.launcher import Session, open_session
from goodbuddy_kb.cli import (
    about,
    chat,
    chunks,
    diagnostics,
    graph,
    mcp,
    models,
    rebuild,
    retrieve,
    sources,
    tasks,
)
from goodbuddy_kb.cli.eval import cmd_eval
from goodbuddy_kb.cli.libraries import cmd_library
from goodbuddy_kb.cli.output import EXIT_ERROR, EXIT_INTERRUPTED, invalid_input, option_names
from goodbuddy_kb.cli.parser import build_parser
from goodbuddy_kb.cli.resolve import resolve_library
from goodbuddy_kb.contracts.errors import InvalidRequestError, KbError
from goodbuddy_kb.datadir import resolve_data_dir
from goodbuddy_kb.selfexec import BACKEND_COMMAND


def _retrieved_libraries(args: argparse.Namespace, session: Session) -> list[str]:
    """``retrieve``'s libraries: named first (``retrieve L1 L2 "…"``) or with ``--library``."""
    refs = [*args.libraries, *args.named_libraries]
    if not refs:
        raise InvalidRequestError('name a library to search: retrieve LIB "QUESTION"')
    return list(dict.fromkeys(resolve_library(session, ref).id for ref in refs))


def _with_library(
    command: Callable[[argparse.Namespace, Session, str], int],
) -> Callable[[argparse.Namespace, Session], int]:
    return lambda args, session: command(args, session, resolve_library(session, args.library).id)


def _tasks(args: argparse.Namespace, session: Session) -> int:
    library_id = resolve_library(session, args.library).id if args.library else None
    return tasks.cmd_tasks(args, session, library_id)


COMMANDS: dict[str, Callable[[argparse.Namespace, Session], int]] = {
    "library": cmd_library,
    "source": _with_library(sources.cmd_source),
    "sync": _with_library(sources.cmd_sync),
    "rebuild": _with_library(rebuild.cmd_rebuild),
    "graph": _with_library(graph.cmd_graph),
    "documents": _with_library(sources.cmd_documents),
    "chunks": _with_library(chunks.cmd_chunks),
    "chunk": _with_library(chunks.cmd_chunk),
    "tasks": _tasks,
    "diagnostics": diagnostics.cmd_diagnostics,
    "chat": chat.cmd_chat,
    "model": models.cmd_model,
    "retrieve": lambda args, session: retrieve.cmd_retrieve(
        args, session, _retrieved_libraries(args, session)
    ),
}


def _in_user_language(message: str) -> str:
    """Why the backend could not start (a newer build's data directory, a locked one…), in the
    person's language like the window says it (GOODBUDDY_LANG, the window's choice, the locale)."""
    from goodbuddy_kb.ui.i18n import detect_language, set_language
    from goodbuddy_kb.ui.i18n.messages import say_text

    set_language(detect_language())
    return say_text(message)


def _parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace:
    """The command line's arguments. ``retrieve LIB --top-k 8 "QUESTION"`` was refused
    ("unrecognized arguments: QUESTION"): argparse fills LIB… and QUESTION from the words before
    the first option alone; the words left after the options continue them."""
    args, extras = parser.parse_known_args(arguments)
    if extras and args.command == "retrieve" and not any(e.startswith("-") for e in extras):
        words = [*args.libraries, args.query, *extras]
        try:
            args.libraries, args.query = words[:-1], retrieve.question(words[-1])
        except argparse.ArgumentTypeError as e:
            parser.error(f"argument QUESTION: {e}")
    elif extras:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == [BACKEND_COMMAND]:  # a frozen bundle launching its own backend
        from goodbuddy_kb.main_process.app import run

        return run(arguments[1:])
    parser = build_parser()
    args = _parse(parser, arguments)
    data_dir = resolve_data_dir(getattr(args, "data_dir", None))
    if args.command is None:
        from goodbuddy_kb.ui.app import run_gui

        return run_gui(data_dir, smoke=args.smoke)
    if args.command == "notices":
        return about.cmd_notices(args)  # needs no backend and no data directory
    if args.command == "eval":
        return cmd_eval(args)  # runs in its own temporary data directory
    if args.command == "mcp":
        return mcp.cmd_mcp(parser, args, data_dir)
    try:
        session = open_session(data_dir)
    except KbError as exc:
        print(f"error: {_in_user_language(exc.message)}", file=sys.stderr)
        return EXIT_ERROR
    try:
        return COMMANDS[args.command](args, session)
    except KbError as exc:
        return _failed(args, exc)
    except ValidationError as exc:  # a request this side refused before sending it
        return _failed(args, InvalidRequestError(invalid_input(exc, args, option_names(parser))))
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):  # `… | head` closed the pipe: not an error
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes it at exit
            return 0
        where = f" {exc.filename}" if exc.filename else ""
        return _failed(args, InvalidRequestError(f"cannot read{where}: {exc.strerror or exc}"))
    except KeyboardInterrupt:
        print(f"\ninterrupted: {_interrupted(session)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        session.close()


def _failed(args: argparse.Namespace, exc: KbError) -> int:
    if getattr(args, "json", False):
        print(json.dumps({"error": exc.to_payload().model_dump(mode="json")}, ensure_ascii=False))
    print(f"error [{exc.code.value}]: {exc.message}", file=sys.stderr)
    return EXIT_ERROR


def _interrupted(session: Session) -> str:
    if session.process is None:
        return "tasks already started go on in the backend the window runs (see `tasks`)"
    return (
        "the backend this command started closes, cancelling its running tasks; what they"
        " finished stays, and the next sync picks up the rest (see `tasks`)"
    )
