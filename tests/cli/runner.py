"""The `goodbuddy-kb` command as a user runs it: a real process (`python -m goodbuddy_kb`), with
the data directory given by `--data-dir` or by GOODBUDDY_DATA_DIR."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def run(
    data_dir: Path,
    *args: str,
    env_dir: bool = False,
    timeout: float = 300,
    env_extra: dict[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **(env_extra or {})}
    argv = [sys.executable, "-m", "goodbuddy_kb", *args]
    if env_dir:
        env["GOODBUDDY_DATA_DIR"] = str(data_dir)
    else:
        argv += ["--data-dir", str(data_dir)]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
    )


def cli_json(data_dir: Path, *args: str) -> Any:
    """The command's ``--json`` answer, which must have succeeded."""
    done = run(data_dir, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def bundled_library(data_dir: Path, name: str, folder: Path) -> None:
    """A library ``name`` of ``folder``'s files, embedded by the bundled model, synced."""
    for command in (
        ("model", "embedding", "--provider", "local"),
        ("library", "create", name),
        ("source", "add", name, str(folder)),
    ):
        done = run(data_dir, *command)
        assert done.returncode == 0, done.stderr
