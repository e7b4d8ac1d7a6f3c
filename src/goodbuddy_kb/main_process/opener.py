"""Opening a checked local file or http(s) URL with the platform's opener, and showing a checked
local file in its folder.

``GOODBUDDY_OPENER`` names another opener command (it receives the target as its only
argument) and ``GOODBUDDY_REVEALER`` another "show in folder" command (it receives the file's
path); tests use them to record what the backend opens at the process boundary.

Showing in a folder: Finder (``open -R``) on macOS, Explorer (``/select,``) on Windows; elsewhere
the desktop's file manager over D-Bus (``org.freedesktop.FileManager1.ShowItems``, which
selects the file), else the opener on the file's folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.contracts.messages import Reason

ENV_OPENER = "GOODBUDDY_OPENER"
ENV_REVEALER = "GOODBUDDY_REVEALER"
#: How long the file manager may take to say it showed the file.
REVEAL_TIMEOUT_S = 5.0
#: How long an opener may take to say it failed (``xdg-open`` answers in well under a second
#: whether a program took the file); one still running then is taken to be showing it.
OPEN_CHECK_S = 3.0
#: The reason of a file manager (or opener on the folder) that answered it could not show it.
REVEAL_FAILED = "reference.reveal_failed"


def _opener_command() -> str:
    return os.environ.get(ENV_OPENER) or ("open" if sys.platform == "darwin" else "xdg-open")


def _start(argv: list[str], failed: str | None = "reference.opener_failed") -> None:
    """Start ``argv`` detached and wait up to ``OPEN_CHECK_S`` for its answer: an exit status
    other than 0 is an UnavailableError naming the program (it was not opened, whatever the
    program printed); one still running then is left to a daemon thread that reaps it."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    status = None  # not waited for (Explorer answers 1 whatever it did), or still running
    if failed is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            status = process.wait(timeout=OPEN_CHECK_S)
        if status:
            raise UnavailableError(Reason(failed, program=Path(argv[0]).name, exit_code=status))
    if status is None:
        threading.Thread(target=process.wait, name="opener-reaper", daemon=True).start()


def open_with_platform(target: str) -> None:
    configured = os.environ.get(ENV_OPENER)
    if not configured and sys.platform == "win32":
        os.startfile(target)  # type: ignore[attr-defined]
        return
    command = _opener_command()
    if shutil.which(command) is None:
        raise UnavailableError(Reason("reference.no_opener", program=command))
    _start([command, target])


def _show_items(path: str) -> bool:
    """Ask the desktop's file manager over D-Bus to show ``path`` selected; False when none did."""
    uri = Path(path).as_uri()
    for tool, argv in (
        (
            "gdbus",
            [
                "call", "--session", "--dest", "org.freedesktop.FileManager1",
                "--object-path", "/org/freedesktop/FileManager1",
                "--method", "org.freedesktop.FileManager1.ShowItems", f"['{uri}']", "",
            ],
        ),
        (
            "dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.FileManager1",
                "/org/freedesktop/FileManager1", "org.freedesktop.FileManager1.ShowItems",
                f"array:string:{uri}", "string:",
            ],
        ),
    ):  # fmt: skip
        program = shutil.which(tool)
        if program is None:
            continue
        try:
            done = subprocess.run(
                [program, *argv],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=REVEAL_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return True
    return False


def reveal_with_platform(path: str) -> None:
    """Show the checked local file ``path`` in its folder, or UnavailableError saying why not."""
    configured = os.environ.get(ENV_REVEALER)
    if configured:
        if shutil.which(configured) is None:
            raise UnavailableError(Reason("reference.no_file_manager"))
        _start([configured, path], REVEAL_FAILED)
    elif sys.platform == "win32":
        _start(["explorer", f"/select,{path}"], None)
    elif sys.platform == "darwin":
        _start(["open", "-R", path], REVEAL_FAILED)
    elif not _show_items(path):
        folder = str(Path(path).parent)
        if shutil.which(_opener_command()) is None:
            raise UnavailableError(Reason("reference.no_file_manager"))
        _start([_opener_command(), folder], REVEAL_FAILED)
