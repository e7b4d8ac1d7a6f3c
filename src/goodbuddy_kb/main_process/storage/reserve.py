"""Room to say why, when the disk is full.

A full disk fails a task's write; recording that failure (the task's final row, its documents'
statuses, the failed vector version) is a write too, and on a disk with no room it fails the
same way: the task stayed "running" for good and a command waiting on it never returned. So the
backend keeps a few megabytes of the data directory's disk in a file of its own. The first
write that finds the disk full gives them back (:func:`release_for`, called where every write
transaction ends), and the failure is recorded in that room. The reserve is laid down again
after each task once the disk has room to spare (:func:`keep`); at start, a disk nearly full
gets the reserve's room back, so the backend can open and say what it can (:func:`at_start`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
from pathlib import Path

#: The reserve, beside the database.
FILE = "space-reserve.bin"
#: Enough for a failure's writes: task rows, document statuses, a failed version's rows.
SIZE = 8 * 1024 * 1024
#: Megabytes to reserve instead (the test suite's hundreds of data directories take 1).
ENV_SIZE = "GOODBUDDY_SPACE_RESERVE_MB"
#: Free room the reserve leaves on the disk when it is laid down (never the last of it).
SPARE = 8 * 1024 * 1024


def is_disk_full(exc: BaseException) -> bool:
    """A write that failed for want of room (SQLite's SQLITE_FULL, or ENOSPC from a file)."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


def _free(data_dir: Path) -> int:
    try:
        return shutil.disk_usage(data_dir).free
    except OSError:
        return 0


def size() -> int:
    """The reserve's size in bytes: :data:`SIZE`, or :data:`ENV_SIZE` megabytes."""
    try:
        return max(0, int(os.environ[ENV_SIZE])) * 1024 * 1024
    except (KeyError, ValueError):
        return SIZE


def keep(data_dir: Path) -> bool:
    """Lay the reserve down unless it is there; False when the disk has not :data:`SPARE`
    room to spare beside it (a reserve laid on a disk just freed by one would fill it again)."""
    path, wanted = data_dir / FILE, size()
    with contextlib.suppress(OSError):
        if path.stat().st_size >= wanted:
            return True
    if _free(data_dir) < wanted + SPARE:
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            if hasattr(os, "posix_fallocate"):
                os.posix_fallocate(fd, 0, wanted)
            else:  # pragma: no cover - macOS, Windows: real blocks, not a sparse file
                block = b"\0" * (1024 * 1024)
                for _ in range(wanted // len(block)):
                    os.write(fd, block)
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        path.unlink(missing_ok=True)  # half a reserve only takes room
        return False
    return True


def check_room(data_dir: Path) -> None:
    """Raise ENOSPC before a bulk write (a document's chunks, a batch of vectors) when the disk
    has less than :data:`SPARE` free: the last room is for recording what failed, and a task
    still importing would take the reserve's room as soon as it was given back."""
    if _free(data_dir) < SPARE:
        raise OSError(errno.ENOSPC, "the disk is nearly full")


def check_room_for(conn: sqlite3.Connection) -> None:
    """:func:`check_room` of the data directory holding ``conn``'s database."""
    folder = _folder(conn)
    if folder is not None:
        check_room(folder)


def at_start(data_dir: Path) -> None:
    """A disk with less than :data:`SPARE` free gets the reserve's room back (the backend's
    first writes need it); otherwise the reserve is kept."""
    if _free(data_dir) < SPARE:
        release(data_dir)
    else:
        keep(data_dir)


def release(data_dir: Path) -> bool:
    """Give the reserve's room back; True if there was one."""
    try:
        (data_dir / FILE).unlink()
    except OSError:
        return False
    return True


def release_for(conn: sqlite3.Connection) -> bool:
    """:func:`release` the reserve of the data directory holding ``conn``'s database."""
    folder = _folder(conn)
    return folder is not None and release(folder)


def _folder(conn: sqlite3.Connection) -> Path | None:
    try:
        row = conn.execute("PRAGMA database_list").fetchone()
    except sqlite3.Error:
        return None
    return Path(row[2]).parent if row and row[2] else None
