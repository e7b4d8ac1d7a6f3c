"""Why the backend cannot use its data directory, as one coded verdict a person can act on: a
read-only directory, a damaged database, a full disk.

At start the verdict is announced to the launcher (the CLI prints it, the window shows it in the
user's language); under a running task it is the task's reason. Anything else is named by its
kind only, never with a traceback."""

from __future__ import annotations

import errno
import sqlite3

from goodbuddy_kb.contracts.messages import Reason

#: verdict → message code (``contracts/messages.py``)
CODES = {
    "read_only": "data.read_only",
    "corrupt_database": "data.corrupt_database",
    "disk_full": "data.disk_full",
    "start_failed": "data.unusable",
}


def verdict(exc: BaseException) -> tuple[str, Reason]:
    """``(verdict, reason)`` for an error met while opening or writing the data directory."""
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            kind = "disk_full"
        elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            kind = "read_only"
        else:
            kind = "start_failed"
        detail = exc.strerror or exc.__class__.__name__
    elif isinstance(exc, sqlite3.Error):
        text = str(exc)
        lowered = text.lower()
        if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
            kind = "corrupt_database"
        elif "full" in lowered:
            kind = "disk_full"
        elif "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
            kind = "read_only"
        else:
            kind = "start_failed"
        detail = text[:120] or exc.__class__.__name__
    else:
        kind, detail = "start_failed", exc.__class__.__name__
    return kind, Reason(CODES[kind], detail=detail)


def task_failure(exc: sqlite3.Error | OSError) -> Reason:
    """A task's reason for a database or file-system error: a write that lost its library or
    source to a concurrent removal (a foreign key), or what :func:`verdict` says of the data
    directory."""
    if isinstance(exc, sqlite3.IntegrityError):
        return Reason("data.removed_meanwhile")
    return verdict(exc)[1]
