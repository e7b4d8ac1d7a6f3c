"""Opening a checked local file or http(s) URL with the platform's opener.

``GOODBUDDY_OPENER`` names another opener command (it receives the target as its only
argument); tests use it to record what the backend opens at the process boundary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from goodbuddy_kb.contracts.errors import UnavailableError

ENV_OPENER = "GOODBUDDY_OPENER"


def open_with_platform(target: str) -> None:
    configured = os.environ.get(ENV_OPENER)
    if not configured and sys.platform == "win32":
        os.startfile(target)  # type: ignore[attr-defined]
        return
    command = configured or ("open" if sys.platform == "darwin" else "xdg-open")
    if shutil.which(command) is None:
        raise UnavailableError(
            f"no program to open files is available on this system ({command} was not found)"
        )
    subprocess.Popen(
        [command, target],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
