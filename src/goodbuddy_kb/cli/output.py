"""What every command prints through: ``emit`` (JSON with --json, else text), the exit codes,
counts with their nouns in the number they ask for, and the question asked before deleting
something."""

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


def noun(n: int, word: str, many: str | None = None) -> str:
    """``word`` in the number ``n`` asks for: "document" for one, "documents" otherwise."""
    return word if n == 1 else (many or f"{word}s")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and its noun: "1 chunk", "3 chunks"."""
    return f"{n} {noun(n, word, many)}"


def confirm(question: str, shown_first: str = "") -> bool:
    """Ask on a terminal (after showing ``shown_first`` on stderr, if any); refuse, and say
    why, when there is no one to ask."""
    if not sys.stdin.isatty():
        print("refusing to delete without --yes when not interactive", file=sys.stderr)
        return False
    if shown_first:
        print(shown_first, file=sys.stderr)
    return input(question).strip().lower() in {"y", "yes"}
