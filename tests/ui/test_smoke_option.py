"""`goodbuddy-kb --smoke`: the installation check a package's test runs — the window opens,
its backend starts and answers, and the program closes by itself with exit 0."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.datadir import DATABASE_FILE

pytestmark = [pytest.mark.gui, pytest.mark.integration]


def test_smoke_opens_the_window_with_its_backend_and_closes(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "goodbuddy_kb", "--smoke", "--data-dir", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (data_dir / DATABASE_FILE).is_file()  # the backend opened (and migrated) it


def test_smoke_fails_when_the_backend_cannot_start(tmp_path: Path) -> None:
    taken = tmp_path / "not-ours"
    taken.mkdir()
    (taken / "someone-elses.txt").write_text("keep me")
    done = subprocess.run(
        [sys.executable, "-m", "goodbuddy_kb", "--smoke", "--data-dir", str(taken)],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 1
    assert "the backend did not start" in done.stderr
    assert [p.name for p in taken.iterdir()] == ["someone-elses.txt"]
