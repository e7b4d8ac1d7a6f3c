"""The data-directory lock: two backends never write the same database.

An OS advisory lock (``flock``/``msvcrt.locking``) is released by the kernel when its holder
dies, so a lock file left by a crashed backend is simply taken over.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

from goodbuddy_kb.datadir import LOCK_FILE, lock_file, unlock_file


class DataDirLocked(Exception):
    """Another live backend holds this data directory."""


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self._path = data_dir / LOCK_FILE
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        fh = open(self._path, "a+", encoding="utf-8")  # noqa: SIM115 - held for the lifetime
        try:
            lock_file(fh)
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
            unlock_file(self._fh)
            self._fh.close()
            self._fh = None
