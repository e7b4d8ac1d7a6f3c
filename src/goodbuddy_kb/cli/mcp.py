"""`goodbuddy-kb mcp [--library LIB]…`: an MCP server on stdio for other AI tools, over the
libraries switched on as available to them (read-only; `--library` narrows, never widens)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from goodbuddy_kb.contracts.limits import MAX_LIBRARIES_PER_REQUEST


def add_parser(commands: Any) -> None:
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


def cmd_mcp(parser: argparse.ArgumentParser, args: argparse.Namespace, data_dir: Path) -> int:
    """Serve until the client closes stdin (the server module loads only for this command)."""
    from goodbuddy_kb.mcp_server.server import run as run_mcp

    if args.library and len(args.library) > MAX_LIBRARIES_PER_REQUEST:
        parser.error(f"at most {MAX_LIBRARIES_PER_REQUEST} --library options")
    return run_mcp(data_dir, args.library)
