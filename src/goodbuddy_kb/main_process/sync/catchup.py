"""A watched folder's changes made while the app was closed: found at the next start.

The watcher only hears changes while the backend runs. At start each watched folder is
compared with what its last sync left, by listing and ``stat`` alone (no file is read): a file
added or gone, a size that differs, a modification time after the last sync, a sync that never
finished, or a folder that was unavailable and is back. Only then is the folder synced, which
re-reads and hashes every file; an unchanged folder costs a listing.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from goodbuddy_kb.contracts.paths import message_of, os_path
from goodbuddy_kb.contracts.sources import MAX_FILES_PER_SOURCE
from goodbuddy_kb.main_process.storage.sources import SourceRow
from goodbuddy_kb.main_process.sync.folder import list_folder

log = logging.getLogger(__name__)

#: File systems that keep modification times in whole (FAT: two) seconds: a file written in the
#: last moments of a sync can carry a time just before the sync's end.
_CLOCK_SLACK = timedelta(seconds=2)


def changed_while_closed(conn: sqlite3.Connection, source: SourceRow) -> bool:
    """Whether the watched folder ``source`` holds anything its last sync did not see."""
    row = conn.execute("SELECT last_synced_at FROM sources WHERE id = ?", (source.id,)).fetchone()
    if row is None:
        return False  # removed meanwhile
    folder = Path(os_path(source.location))
    if not folder.is_dir():
        return source.state != "unavailable"  # the sync says it is gone, once
    if row[0] is None or source.state == "unavailable":
        return True  # never finished a sync, or back after being away
    since = (datetime.fromisoformat(row[0]) - _CLOCK_SLACK).timestamp()
    sizes = {
        r[0]: r[1]
        for r in conn.execute(
            "SELECT relative_path, size_bytes FROM documents WHERE source_id = ?", (source.id,)
        )
        if message_of(r[0]) is None  # an attachment comes with its message
    }
    listed = list_folder(folder, source.include, source.exclude)[:MAX_FILES_PER_SOURCE]
    if set(listed) != sizes.keys():
        return True
    for relative in listed:
        try:
            info = os.stat(folder / os_path(relative), follow_symlinks=False)
        except OSError:
            return True
        if info.st_size != sizes[relative] or info.st_mtime > since:
            return True
    return False


def stale_watched(conn: sqlite3.Connection, rows: list[SourceRow]) -> list[SourceRow]:
    """The watched folder sources that changed while the app was closed."""
    stale: list[SourceRow] = []
    for source in rows:
        if source.kind != "folder" or not source.watch:
            continue
        try:
            if changed_while_closed(conn, source):
                stale.append(source)
        except (OSError, ValueError) as exc:  # an unreadable folder: the sync will say why
            log.info("a watched folder could not be compared: %s", exc)
            stale.append(source)
    return stale
