"""Why the backend could not open its data directory, as one coded verdict a person can act on.

The launcher shows the verdict's message (the CLI prints it; the window translates it by its
reason): a read-only directory, a damaged database, a full disk. Anything else is named by its
kind only, never with a traceback."""

from __future__ import annotations

import errno
import sqlite3

#: reason → what a person can do about it (English; the window has both languages).
ADVICE = {
    "read_only": "the data directory cannot be written ({detail}); check its permissions or"
    " choose another with --data-dir",
    "corrupt_database": "the database file is damaged ({detail}); restore it from a backup, or"
    " move goodbuddy-kb.sqlite3 aside to start with an empty one",
    "disk_full": "the disk holding the data directory is full; free some space and start again",
    "start_failed": "the data directory could not be opened ({detail})",
}


def verdict(exc: BaseException) -> tuple[str, str]:
    """``(reason, message)`` for an error met while opening the data directory."""
    text = str(exc)
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            reason = "disk_full"
        elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            reason = "read_only"
        else:
            reason = "start_failed"
        detail = exc.strerror or exc.__class__.__name__
    elif isinstance(exc, sqlite3.Error):
        lowered = text.lower()
        if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
            reason = "corrupt_database"
        elif "full" in lowered:
            reason = "disk_full"
        elif "readonly" in lowered or "read-only" in lowered or "unable to open" in lowered:
            reason = "read_only"
        else:
            reason = "start_failed"
        detail = text[:120] or exc.__class__.__name__
    else:
        reason, detail = "start_failed", exc.__class__.__name__
    return reason, ADVICE[reason].format(detail=detail)
