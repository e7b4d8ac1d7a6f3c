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

ENV_DATA_DIR = "GOODBUDDY_DATA_DIR"
LOCK_FILE = "backend.lock"
ENDPOINT_FILE = "backend.json"


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


def ensure_private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    if os.name == "posix":
        os.chmod(path, 0o700)


@dataclass(frozen=True)
class Endpoint:
    """How to reach the backend serving a data directory; readable by the owner only."""

    server_name: str
    secret: str
    pid: int

    def write(self, data_dir: Path) -> None:
        target = data_dir / ENDPOINT_FILE
        tmp = data_dir / (ENDPOINT_FILE + ".tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        fd = os.open(tmp, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"serverName": self.server_name, "secret": self.secret, "pid": self.pid}, fh)
        os.replace(tmp, target)

    @staticmethod
    def read(data_dir: Path) -> Endpoint | None:
        try:
            raw = json.loads((data_dir / ENDPOINT_FILE).read_text(encoding="utf-8"))
            return Endpoint(str(raw["serverName"]), str(raw["secret"]), int(raw["pid"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @staticmethod
    def remove(data_dir: Path, pid: int) -> None:
        current = Endpoint.read(data_dir)
        if current is not None and current.pid == pid:
            (data_dir / ENDPOINT_FILE).unlink(missing_ok=True)
