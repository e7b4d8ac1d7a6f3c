"""A data directory the backend cannot use says why, in words a person can act on: read-only,
a damaged database. Never a traceback, never just "exited with 1"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def cli(
    data_dir: Path, *args: str, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    argv = [*prefix, sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data_dir), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def _clear(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    assert "exited with" not in result.stderr
    return result.stderr


def test_a_damaged_database_is_named(data_dir: Path) -> None:
    assert cli(data_dir, "library", "create", "Notes").returncode == 0
    database = data_dir / "goodbuddy-kb.sqlite3"
    with open(database, "r+b") as f:
        f.write(os.urandom(4096))
    for name in ("goodbuddy-kb.sqlite3-wal", "goodbuddy-kb.sqlite3-shm"):
        (data_dir / name).unlink(missing_ok=True)
    said = _clear(cli(data_dir, "library", "list"))
    assert "database file is damaged" in said and "backup" in said


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_read_only_data_directory_is_named(data_dir: Path) -> None:
    assert cli(data_dir, "library", "create", "Notes").returncode == 0
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root ignores permissions and setpriv is missing")
        # root without the capability to override file permissions: it obeys them like anyone
        prefix = (setpriv, "--bounding-set=-dac_override")
    for path in data_dir.iterdir():
        path.chmod(0o400)
    data_dir.chmod(0o500)
    try:
        said = _clear(cli(data_dir, "library", "list", prefix=prefix))
    finally:
        data_dir.chmod(0o700)
        for path in data_dir.iterdir():
            path.chmod(0o600)
    assert "cannot be written" in said and "permissions" in said
