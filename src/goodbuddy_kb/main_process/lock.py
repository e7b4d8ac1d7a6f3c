"""The data-directory lock: two backends never write the same database.

An OS advisory lock (``flock``/``msvcrt.locking``) is released by the kernel when its holder
dies, so a lock file left by a crashed backend is simply taken over.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO

from goodbuddy_kb.datadir import LOCK_FILE


class DataDirLocked(Exception):
    """Another live backend holds this data directory."""


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self._path = data_dir / LOCK_FILE
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        fh = open(self._path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the lifetime
        try:
            _lock(fh)
        except OSError as exc:
            fh.close()
            raise DataDirLocked(f"another backend is serving {self._path.parent}") from exc
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        if self._fh is not None:
            _unlock(self._fh)
            self._fh.close()
            self._fh = None


if sys.platform == "win32":
    import msvcrt

    def _lock(fh: IO[str]) -> None:
        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(fh: IO[str]) -> None:
        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fh: IO[str]) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fh: IO[str]) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
