"""The exact command that starts the MCP server on this machine, and ready-to-paste client
configuration for common MCP clients (absolute paths, this data directory)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from goodbuddy_kb.selfexec import program_argv

SERVER_KEY = "goodbuddy-kb"
ClientFormat = Literal["mcpServers", "vscode"]
#: (format, label) — "mcpServers" is read by Claude Desktop, Cursor, Cherry Studio, Windsurf…
CLIENT_FORMATS: tuple[ClientFormat, ...] = ("mcpServers", "vscode")


def server_command(data_dir: Path, libraries: Sequence[str] = ()) -> list[str]:
    """argv of `goodbuddy-kb mcp` with absolute paths (the bundle's executable when frozen)."""
    argv = [*program_argv(), "mcp", "--data-dir", str(Path(data_dir).absolute())]
    for name in libraries:
        argv += ["--library", name]
    return argv


def command_line(argv: Sequence[str]) -> str:
    """One line to paste into a terminal of this platform."""
    return subprocess.list2cmdline(list(argv)) if sys.platform == "win32" else shlex.join(argv)


def client_config(argv: Sequence[str], fmt: ClientFormat = "mcpServers") -> dict[str, Any]:
    entry: dict[str, Any] = {"command": argv[0], "args": list(argv[1:])}
    if fmt == "vscode":
        return {"servers": {SERVER_KEY: {"type": "stdio", **entry}}}
    return {"mcpServers": {SERVER_KEY: entry}}


def client_snippet(argv: Sequence[str], fmt: ClientFormat = "mcpServers") -> str:
    return json.dumps(client_config(argv, fmt), indent=2, ensure_ascii=False)
