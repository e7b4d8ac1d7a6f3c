"""The `goodbuddy-kb` argument parser: the options every command takes (`--data-dir`, `--json`)
and each command group's subcommands, in the order `--help` lists them."""

from __future__ import annotations

import argparse

from goodbuddy_kb.cli import (
    about,
    chat,
    chunks,
    diagnostics,
    graph,
    libraries,
    mcp,
    models,
    rebuild,
    retrieve,
    sources,
    tasks,
)
from goodbuddy_kb.cli import eval as eval_command


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
    about.add_version(parser)
    commands = parser.add_subparsers(dest="command")
    libraries.add_parser(commands, common)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="open the window, wait until its backend answers, then close it (exit 0 when it did)",
    )
    sources.add_parsers(commands, common)
    retrieve.add_parser(commands, common)
    tasks.add_parser(commands, common)
    rebuild.add_parser(commands, common)
    graph.add_parser(commands, common)
    chunks.add_parsers(commands, common)
    diagnostics.add_parser(commands, common)
    chat.add_parser(commands, common)
    models.add_parser(commands, common)
    eval_command.add_parser(commands)
    mcp.add_parser(commands)
    about.add_parser(commands)
    return parser
