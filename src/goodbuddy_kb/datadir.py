"""Where a data directory lives, and the files both processes agree on inside it.

Shared by the backend (which owns the directory) and the bridge launcher (which finds the
backend serving it). Holds no Qt and no sqlite3.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ENV_DATA_DIR = "GOODBUDDY_DATA_DIR"
LOCK_FILE = "backend.lock"
ENDPOINT_FILE = "backend.json"
LOG_FILE = "backend.log"
DATABASE_FILE = "goodbuddy-kb.sqlite3"
#: Files only a GoodBuddy data directory holds; any one of them marks a folder as ours.
_MARKERS = (DATABASE_FILE, LOCK_FILE, ENDPOINT_FILE, LOG_FILE)


class NotADataDirectory(Exception):
    """The chosen folder holds other things: it is refused rather than taken over."""


def default_data_dir() -> Path:
    """The platform's application-data folder."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", home / "AppData" / "Roaming"))
        return base / "GoodBuddy KB"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "GoodBuddy KB"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / "goodbuddy-kb"


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """`--data-dir`, else `GOODBUDDY_DATA_DIR`, else the platform default; absolute."""
    chosen = explicit or os.environ.get(ENV_DATA_DIR) or default_data_dir()
    return Path(chosen).expanduser().resolve()


def is_data_dir(path: Path) -> bool:
    return any((path / name).exists() for name in _MARKERS)


def ensure_private_dir(path: Path) -> None:
    """Create the data directory (owner-only), or accept an existing empty folder or an existing
    GoodBuddy data directory. Any other folder is refused (NotADataDirectory) and left exactly
    as it was: its permissions are not changed and nothing is written into it."""
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise NotADataDirectory(f"{path} is not a folder")
        try:
            empty = next(path.iterdir(), None) is None
        except OSError as exc:
            raise NotADataDirectory(f"{path} cannot be read ({exc.strerror})") from exc
        if not empty and not is_data_dir(path):
            raise NotADataDirectory(
                f"{path} is not empty and is not a GoodBuddy KB data directory;"
                " choose an empty or a new folder"
            )
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "posix":
        os.chmod(path, 0o700)


def directory_identity(path: Path) -> str:
    """Which folder ``path`` is, as the file system knows it (device and inode): a copy of a data
    directory (``cp -a``) is another folder even though its files are the same."""
    info = os.stat(path)
    return f"{info.st_dev}:{info.st_ino}"


@dataclass(frozen=True)
class Endpoint:
    """How to reach the backend serving a data directory; readable by the owner only.

    ``directory`` is the identity of the folder the backend serves: a ``backend.json`` copied
    along with a data directory names the original's backend, and is ignored in the copy."""

    server_name: str
    secret: str
    pid: int
    directory: str = ""

    def write(self, data_dir: Path) -> None:
        target = data_dir / ENDPOINT_FILE
        tmp = data_dir / (ENDPOINT_FILE + ".tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        fd = os.open(tmp, flags, 0o600)
        record = {
            "serverName": self.server_name,
            "secret": self.secret,
            "pid": self.pid,
            "directory": self.directory or directory_identity(data_dir),
        }
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, target)

    @staticmethod
    def read(data_dir: Path) -> Endpoint | None:
        """The backend serving ``data_dir``, or None: no file, an unreadable one, or one that
        was written for another folder (a copy of this one, or this one a copy of it)."""
        try:
            raw = json.loads((data_dir / ENDPOINT_FILE).read_text(encoding="utf-8"))
            endpoint = Endpoint(
                str(raw["serverName"]), str(raw["secret"]), int(raw["pid"]), str(raw["directory"])
            )
            if endpoint.directory != directory_identity(data_dir):
                return None
            return endpoint
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @staticmethod
    def remove(data_dir: Path, pid: int) -> None:
        current = Endpoint.read(data_dir)
        if current is not None and current.pid == pid:
            (data_dir / ENDPOINT_FILE).unlink(missing_ok=True)


if sys.platform == "win32":
    import msvcrt

    def lock_file(fh: IO[str]) -> None:
        """Take ``fh``'s advisory lock without waiting; OSError when another process holds it."""
        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)

    def unlock_file(fh: IO[str]) -> None:
        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def lock_file(fh: IO[str]) -> None:
        """Take ``fh``'s advisory lock without waiting; OSError when another process holds it."""
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def unlock_file(fh: IO[str]) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def backend_lock_held(data_dir: Path) -> bool:
    """Whether a live backend holds ``data_dir``'s lock (starting or serving). Probes by taking
    the lock for an instant; a backend starting in that instant says "locked" and its launcher
    waits, as for any other backend that got there first."""
    try:
        fh = open(data_dir / LOCK_FILE, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError:
        return False
    try:
        lock_file(fh)
    except OSError:
        return True
    else:
        unlock_file(fh)
        return False
    finally:
        fh.close()
