"""`--data-dir` on a folder that is not a GoodBuddy data directory (issue 19 concern)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.launcher import BackendProcess, BackendStartError
from tests.cli.runner import run

pytestmark = pytest.mark.integration


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    folder = tmp_path / "my-documents"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    (folder / "thesis.docx").write_bytes(b"mine")
    return folder


def listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_a_foreign_folder_is_refused_and_left_as_it_was(foreign: Path) -> None:
    with pytest.raises(BackendStartError) as caught:
        BackendProcess.start(foreign)
    assert caught.value.reason == "data_dir" and "not empty" in caught.value.message
    if sys.platform != "win32":
        assert stat.S_IMODE(foreign.stat().st_mode) == 0o755
    assert listing(foreign) == {"thesis.docx"}


def test_the_cli_says_why_it_refuses_a_foreign_folder(foreign: Path) -> None:
    result = run(foreign, "library", "list")
    assert result.returncode != 0
    assert "not a GoodBuddy KB data directory" in result.stderr
    assert listing(foreign) == {"thesis.docx"}


def test_an_empty_folder_and_an_existing_data_directory_are_accepted(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(empty, "library", "create", "A").returncode == 0
    if sys.platform != "win32":
        assert stat.S_IMODE(empty.stat().st_mode) == 0o700
    assert run(empty, "library", "list").stdout.strip().endswith(" A")
