"""`goodbuddy-kb library create|list|rename|delete|expose`: the libraries themselves (deleting
one removes its index; the original files stay; exposing one lets external AI tools search it)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from goodbuddy_kb.bridge.launcher import Session
from goodbuddy_kb.cli import settings
from goodbuddy_kb.cli.output import EXIT_ERROR, confirm, emit, plural
from goodbuddy_kb.cli.resolve import resolve_library
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    LIBRARY_LIST,
    LIBRARY_RENAME,
    SETTINGS_UPDATE,
)


def add_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    lib = commands.add_parser(
        "library", help="create, list, rename or delete libraries; show or change their settings"
    )
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
    p = lib_cmds.add_parser(
        "expose",
        parents=[common],
        help="let external AI tools (goodbuddy-kb mcp) search a library, or stop them",
    )
    p.add_argument("library", metavar="LIB")
    p.add_argument("state", choices=["on", "off"])
    settings.add_parser(lib_cmds, common)


def _library_line(lib: c.Library) -> str:
    pending = "  (settings updated, waiting for rebuild" if lib.settings_pending_rebuild else ""
    if pending and lib.kept_old_chunks:
        kept = plural(lib.kept_old_chunks, "document")
        pending += f"; {kept} kept on the old chunking for manual work"
    pending += ")" if pending else ""
    exposed = "  [external AI tools: on]" if lib.external_access else ""
    return f"{lib.id}  {lib.name}{exposed}{pending}"


def cmd_library(args: argparse.Namespace, session: Session) -> int:
    call = session.client.call
    if args.action == "create":
        lib = call(LIBRARY_CREATE, c.LibraryCreateRequest(name=args.name)).library
        emit(args, lib.to_wire(), f"created {_library_line(lib)}")
    elif args.action == "list":
        libs = call(LIBRARY_LIST, c.LibraryListRequest()).libraries
        text = "\n".join(_library_line(lib) for lib in libs) or "no libraries yet"
        emit(args, [lib.to_wire() for lib in libs], text)
    elif args.action == "rename":
        target = resolve_library(session, args.library)
        renamed = call(LIBRARY_RENAME, c.LibraryRenameRequest(library_id=target.id, name=args.name))
        emit(args, renamed.library.to_wire(), f"renamed {_library_line(renamed.library)}")
    elif args.action == "delete":
        target = resolve_library(session, args.library)
        if not args.yes and not confirm(
            f"Delete library “{target.name}” and its index? Original files stay. [y/N] "
        ):
            print("cancelled", file=sys.stderr)
            return EXIT_ERROR
        res = call(LIBRARY_DELETE, c.LibraryDeleteRequest(library_id=target.id))
        emit(args, res.to_wire(), f"deleted “{res.name}” (original files were not touched)")
    elif args.action == "expose":
        target = resolve_library(session, args.library)
        on = args.state == "on"
        call(SETTINGS_UPDATE, c.SettingsUpdateRequest(library_id=target.id, external_access=on))
        text = (
            f"external AI tools can now search “{target.name}” (goodbuddy-kb mcp)"
            if on
            else f"external AI tools can no longer search “{target.name}”"
        )
        emit(args, {"libraryId": target.id, "externalAccess": on}, text)
    elif args.action == "settings":
        return settings.cmd_settings(args, session, resolve_library(session, args.library).id)
    return 0
