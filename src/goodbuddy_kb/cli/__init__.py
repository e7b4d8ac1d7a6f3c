"""The `goodbuddy-kb` command: no arguments starts the GUI; subcommands drive the same bridge.

    goodbuddy-kb library create NAME        goodbuddy-kb library rename LIB NAME
    goodbuddy-kb library list               goodbuddy-kb library delete LIB --yes
    goodbuddy-kb source add LIB PATH|URL    goodbuddy-kb sync LIB
    goodbuddy-kb documents LIB              goodbuddy-kb tasks [LIB]
    goodbuddy-kb rebuild LIB [--document PATH_OR_ID]
    goodbuddy-kb graph LIB entities|relations|status|show NAME|extract|ontology export|import FILE
    goodbuddy-kb chunks LIB DOC [--search TEXT]
    goodbuddy-kb chunk show|edit|enable|disable|delete LIB DOC CHUNK
    goodbuddy-kb retrieve LIB… "question" [--top-k N] [--rerank off|local|learned]
    goodbuddy-kb mcp [--library LIB]…       (an MCP server on stdio for other AI tools)
    goodbuddy-kb diagnostics export FILE    goodbuddy-kb diagnostics show

LIB is a library id or its exact name. ``--json`` prints machine-readable output; ``--data-dir``
(or GOODBUDDY_DATA_DIR) chooses the data directory.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from goodbuddy_kb.bridge.launcher import Session, open_session
from goodbuddy_kb.cli import chunks as cli_chunks
from goodbuddy_kb.cli import diagnostics as cli_diagnostics
from goodbuddy_kb.cli import graph as cli_graph
from goodbuddy_kb.cli import rebuild as cli_rebuild
from goodbuddy_kb.cli import sources as cli_sources
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import KbError, NotFoundError
from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    LIBRARY_RENAME,
)
from goodbuddy_kb.datadir import resolve_data_dir
from goodbuddy_kb.evaluation import report

EXIT_ERROR = 1
EXIT_USAGE = 2


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", default=argparse.SUPPRESS, help="data directory to use")
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output"
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="goodbuddy-kb",
        description="GoodBuddy KB: local knowledge base. Without a command, opens the window.",
        parents=[common],
    )
    commands = parser.add_subparsers(dest="command")
    lib = commands.add_parser("library", help="create, list, rename or delete libraries")
    lib_cmds = lib.add_subparsers(dest="action", required=True)
    p = lib_cmds.add_parser("create", parents=[common], help="create a library")
    p.add_argument("name")
    lib_cmds.add_parser("list", parents=[common], help="list libraries")
    p = lib_cmds.add_parser("rename", parents=[common], help="rename a library")
    p.add_argument("library", metavar="LIB")
    p.add_argument("name")
    p = lib_cmds.add_parser("delete", parents=[common], help="delete a library (files stay)")
    p.add_argument("library", metavar="LIB")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    cli_sources.add_parsers(commands, common)
    cli_rebuild.add_parser(commands, common)
    cli_graph.add_parser(commands, common)
    cli_chunks.add_parsers(commands, common)
    cli_diagnostics.add_parser(commands, common)
    report.add_parser(commands)
    p = commands.add_parser(
        "mcp",
        help="serve the libraries available to external AI tools over MCP (stdio)",
        description="An MCP server on standard input/output for AI tools such as Claude Desktop "
        "or Cursor. It sees only libraries switched on as “available to external AI tools”, "
        "read-only.",
    )
    p.add_argument("--data-dir", default=argparse.SUPPRESS, help="data directory to use")
    p.add_argument(
        "--library",
        action="append",
        metavar="LIB",
        help="only this library (id or name; repeatable); narrows, never widens",
    )
    return parser


def resolve_library(session: Session, ref: str) -> c.Library:
    libraries = session.client.call(LIBRARY_LIST, c.LibraryListRequest()).libraries
    for library in libraries:
        if ref in (library.id, library.name):
            return library
    folded = [lib for lib in libraries if lib.name.casefold() == ref.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise NotFoundError(f"no library with id or name “{ref}”")


def _library_line(lib: c.Library) -> str:
    pending = "  (settings updated, waiting for rebuild)" if lib.settings_pending_rebuild else ""
    return f"{lib.id}  {lib.name}{pending}"


def cmd_library(args: argparse.Namespace, session: Session) -> int:
    call = session.client.call
    if args.action == "create":
        lib = call(LIBRARY_CREATE, c.LibraryCreateRequest(name=args.name)).library
        cli_sources.emit(args, lib.to_wire(), f"created {_library_line(lib)}")
    elif args.action == "list":
        libs = call(LIBRARY_LIST, c.LibraryListRequest()).libraries
        text = "\n".join(_library_line(lib) for lib in libs) or "no libraries yet"
        cli_sources.emit(args, [lib.to_wire() for lib in libs], text)
    elif args.action == "rename":
        target = resolve_library(session, args.library)
        renamed = call(LIBRARY_RENAME, c.LibraryRenameRequest(library_id=target.id, name=args.name))
        cli_sources.emit(
            args, renamed.library.to_wire(), f"renamed {_library_line(renamed.library)}"
        )
    elif args.action == "delete":
        target = resolve_library(session, args.library)
        if not args.yes and not _confirm(
            f"Delete library “{target.name}” and its index? Original files stay. [y/N] "
        ):
            print("cancelled", file=sys.stderr)
            return EXIT_ERROR
        res = call(LIBRARY_DELETE, c.LibraryDeleteRequest(library_id=target.id))
        cli_sources.emit(
            args, res.to_wire(), f"deleted “{res.name}” (original files were not touched)"
        )
    return 0


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        print("refusing to delete without --yes when not interactive", file=sys.stderr)
        return False
    return input(question).strip().lower() in {"y", "yes"}


def _with_library(
    command: Callable[[argparse.Namespace, Session, str], int],
) -> Callable[[argparse.Namespace, Session], int]:
    return lambda args, session: command(args, session, resolve_library(session, args.library).id)


def _tasks(args: argparse.Namespace, session: Session) -> int:
    library_id = resolve_library(session, args.library).id if args.library else None
    return cli_sources.cmd_tasks(args, session, library_id)


COMMANDS: dict[str, Callable[[argparse.Namespace, Session], int]] = {
    "library": cmd_library,
    "source": _with_library(cli_sources.cmd_source),
    "sync": _with_library(cli_sources.cmd_sync),
    "rebuild": _with_library(cli_rebuild.cmd_rebuild),
    "graph": _with_library(cli_graph.cmd_graph),
    "documents": _with_library(cli_sources.cmd_documents),
    "chunks": _with_library(cli_chunks.cmd_chunks),
    "chunk": _with_library(cli_chunks.cmd_chunk),
    "tasks": _tasks,
    "diagnostics": cli_diagnostics.cmd_diagnostics,
    "retrieve": lambda args, session: cli_sources.cmd_retrieve(
        args, session, [resolve_library(session, ref).id for ref in args.libraries]
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    data_dir = resolve_data_dir(getattr(args, "data_dir", None))
    if args.command is None:
        from goodbuddy_kb.ui.app import run_gui

        return run_gui(data_dir)
    if args.command == "eval":
        return report.run(args)  # runs in its own temporary data directory
    if args.command == "mcp":
        from goodbuddy_kb.mcp_server.server import run as run_mcp

        if args.library and len(args.library) > MAX_LIBRARIES_PER_REQUEST:
            parser.error(f"at most {MAX_LIBRARIES_PER_REQUEST} --library options")
        return run_mcp(data_dir, args.library)
    try:
        session = open_session(data_dir)
    except KbError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    try:
        return COMMANDS[args.command](args, session)
    except KbError as exc:
        if getattr(args, "json", False):
            print(
                json.dumps({"error": exc.to_payload().model_dump(mode="json")}, ensure_ascii=False)
            )
        print(f"error [{exc.code.value}]: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        session.close()
