"""A data directory copied while its backend runs (``cp -a``) is a data directory of its own:
commands on the copy never reach the original's backend, and the files a backend creates are the
owner's alone."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.datadir import ENDPOINT_FILE, Endpoint

pytestmark = pytest.mark.integration


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data_dir), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def names(data_dir: Path) -> list[str]:
    listed = cli(data_dir, "--json", "library", "list")
    assert listed.returncode == 0, listed.stderr
    return sorted(x["name"] for x in json.loads(listed.stdout))


def test_a_copied_data_directory_never_operates_on_the_original(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    assert cli(data_dir, "library", "create", "Original").returncode == 0
    copy = tmp_path / "copy"
    shutil.copytree(data_dir, copy, symlinks=True)  # what `cp -a` does, backend.json included
    assert (copy / ENDPOINT_FILE).exists()
    assert Endpoint.read(copy) is None, "the copied backend.json names the original's backend"

    deleted = cli(copy, "library", "delete", "Original", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert names(copy) == []
    assert names(data_dir) == ["Original"], "the copy's command reached the original"
    assert backend.alive()


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_files_the_backend_creates_are_the_owners_alone(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    assert cli(data_dir, "library", "create", "Private").returncode == 0
    export = tmp_path / "elsewhere" / "bundle.json"
    export.parent.mkdir()
    exported = cli(data_dir, "diagnostics", "export", str(export))
    assert exported.returncode == 0, exported.stderr
    created = [p for p in data_dir.iterdir() if p.is_file()] + [export]
    assert len(created) >= 4
    for path in created:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode & 0o077 == 0, f"{path.name} is {oct(mode)}"


def test_concurrent_commands_on_an_idle_directory_all_succeed(tmp_path: Path) -> None:
    data_dir = tmp_path / "idle"
    assert cli(data_dir, "library", "create", "Shared").returncode == 0  # then no backend runs
    argv = [sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data_dir), "library", "list"]
    runs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    outcomes = [(p.wait(timeout=180), *p.communicate()) for p in runs]
    failed = [(code, err[-300:]) for code, _out, err in outcomes if code != 0]
    assert not failed, failed
    assert all("Shared" in out for _code, out, _err in outcomes)
