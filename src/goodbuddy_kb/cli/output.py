"""What every command prints through: ``emit`` (JSON with --json, else text), the exit codes,
and the question asked before deleting something."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

EXIT_ERROR = 1


def emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    """JSON with --json, else the text (every command prints through this)."""
    if getattr(args, "json", False):
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(text)


def confirm(question: str, shown_first: str = "") -> bool:
    """Ask on a terminal (after showing ``shown_first`` on stderr, if any); refuse, and say
    why, when there is no one to ask."""
    if not sys.stdin.isatty():
        print("refusing to delete without --yes when not interactive", file=sys.stderr)
        return False
    if shown_first:
        print(shown_first, file=sys.stderr)
    return input(question).strip().lower() in {"y", "yes"}
