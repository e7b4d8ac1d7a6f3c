"""A diagnostics export never replaces what is already at its path unless asked, and never a link,
folder or device even then."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import diagnostics as d
from goodbuddy_kb.contracts.errors import ConflictError, InvalidRequestError
from goodbuddy_kb.contracts.methods import DIAGNOSTICS_EXPORT

pytestmark = pytest.mark.integration


def test_an_existing_path_is_kept_unless_asked(client: BlockingClient, tmp_path: Path) -> None:
    target = tmp_path / "bundle.json"
    target.write_text("keep me")
    with pytest.raises(ConflictError) as refused:
        client.call(DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(target)))
    assert "already exists" in refused.value.message
    assert target.read_text() == "keep me"
    done = client.call(
        DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(target), overwrite=True)
    )
    assert done.bytes > 100 and target.read_text().startswith("{")
    assert (target.stat().st_mode & 0o077) == 0

    precious = tmp_path / "precious.txt"
    precious.write_text("not a bundle")
    link = tmp_path / "link.json"
    link.symlink_to(precious)
    for path in (link, tmp_path, Path(os.devnull)):
        with pytest.raises(InvalidRequestError) as wrong:
            client.call(
                DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(path), overwrite=True)
            )
        assert "not a file" in wrong.value.message
    assert precious.read_text() == "not a bundle" and link.is_symlink()
    assert Path(os.devnull).is_char_device()


def test_the_cli_asks_for_force(data_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "bundle.json"
    target.write_text("keep me")
    argv = [sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data_dir), "diagnostics"]
    refused = subprocess.run(
        [*argv, "export", str(target)], capture_output=True, text=True, check=False
    )
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert target.read_text() == "keep me"
    forced = subprocess.run(
        [*argv, "export", str(target), "--force"], capture_output=True, text=True, check=False
    )
    assert forced.returncode == 0, forced.stderr
    assert target.read_text().startswith("{")
