"""What every command prints through: ``emit`` (JSON with --json, else text), the exit codes,
counts with their nouns in the number they ask for, and the question asked before deleting
something."""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from pydantic import ValidationError

EXIT_ERROR = 1
#: Done as asked, but not everywhere: a rebuild skipped documents to keep their manual chunk
#: work, and the library's new settings do not yet apply to them.
EXIT_PARTIAL = 3
#: Stopped by Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


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


def option_names(parser: argparse.ArgumentParser) -> set[str]:
    """Every ``--option`` of the parser and its subcommands' parsers."""
    found: set[str] = set()
    for action in parser._actions:
        found.update(o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= option_names(sub)
    return found


def _option(field: str, args: argparse.Namespace, options: set[str]) -> str:
    """``--top-k`` for a request's ``topK`` / ``top_k`` when the command has that option, the
    argument's own name in capitals (``NAME``) when it is positional, else the field."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", field).lower()
    flag = "--" + snake.replace("_", "-")
    if flag in options and snake in vars(args):
        return flag
    return snake.upper() if snake in vars(args) else field


def invalid_input(exc: ValidationError, args: argparse.Namespace, options: set[str]) -> str:
    """A refused request's reasons, one per field, named as the command line names them
    ("NAME: must not be empty", "--limit: must be at least 1"), without pydantic's wording."""
    parts = []
    for error in exc.errors():
        field = str(error["loc"][-1]) if error["loc"] else ""
        message = plain(str(error["msg"]))
        parts.append(f"{_option(field, args, options)}: {message}" if field else message)
    return "; ".join(parts)


def plain(message: str) -> str:
    """A validation message without pydantic's wording ("must be at most 20")."""
    message = message.removeprefix("Value error, ")
    for said, meant in _WORDING:
        message = message.replace(said, meant)
    return message


_WORDING = (
    ("Input should be ", "must be "),
    ("greater than or equal to", "at least"),
    ("less than or equal to", "at most"),
    ("String should match pattern", "must match"),
    ("String should have at most", "must have at most"),
)
