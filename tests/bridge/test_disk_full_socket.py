"""A full disk, for real: the backend runs on a small tmpfs (mounted in a private mount
namespace, so nothing outside the test sees it), and an import fills it. The sync must end
failed with "the disk is full" (it stayed "running" for good, and a command waiting on it never
returned), the failure must be on record after a restart, and what was imported must still be
searched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.main_process.storage import reserve

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def namespace() -> list[str]:
    """The command prefix of a private mount namespace, or skip where none can be made."""
    if sys.platform != "linux" or shutil.which("unshare") is None:
        pytest.skip("needs Linux mount namespaces (unshare)")
    prefix = ["unshare", "-m"] if os.geteuid() == 0 else ["unshare", "-Urm"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace here: {probe.stderr.decode()[:200]}")
    return prefix


def test_an_import_that_fills_the_disk_ends_failed_and_says_why(tmp_path: Path) -> None:
    prefix = namespace()
    mount = tmp_path / "small"
    mount.mkdir()
    arguments = [str(mount), "20m", str(tmp_path / "docs")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])}
    env.pop(reserve.ENV_SIZE, None)  # the reserve a person's backend keeps
    child = subprocess.run(
        [*prefix, sys.executable, "-m", "tests.bridge.diskfull_child", *arguments],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=300,
        check=False,
    )
    assert child.returncode == 0, child.stderr.decode()[-3000:]
    seen = json.loads(child.stdout.decode().strip().splitlines()[-1])
    assert seen["reserve"], "the backend keeps room to record a failure"
    sync = [x for x in seen["listed"] if x[0] == "sync"]
    assert sync == [["sync", "failed", "data.disk_full"]], seen["listed"]
    assert ["sync", "failed"] in seen["recorded"], "the failure is on record, not only shown"
    assert all(state != "running" for _, state in seen["recorded"])
    assert seen["after_restart"], "what was imported before the disk filled is still searched"
