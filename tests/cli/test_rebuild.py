"""`goodbuddy-kb rebuild` as a user runs it: a real process and a real backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.runner import run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def test_rebuild_library_and_documents_with_exit_codes(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text(f"# {name}\n\nText of {name} about rebuilds.\n", "utf-8")
    assert run(data_dir, "library", "create", "Notes").returncode == 0
    added = run(data_dir, "source", "add", "Notes", str(folder))
    assert added.returncode == 0, added.stderr

    whole = run(data_dir, "rebuild", "Notes", "--json")
    assert whole.returncode == 0, whole.stderr
    tasks = json.loads(whole.stdout)
    rebuilt = next(x for x in tasks if x["kind"] == "rebuild")
    assert rebuilt["state"] == "completed" and rebuilt["summary"]["succeeded"] == 2

    by_path = run(data_dir, "rebuild", "Notes", "--document", "a.md")
    assert by_path.returncode == 0, by_path.stderr
    assert "rebuilding a.md" in by_path.stdout and "1 written" in by_path.stdout
    by_file = run(data_dir, "rebuild", "Notes", "--document", str(folder / "b.md"), "--json")
    assert by_file.returncode == 0 and json.loads(by_file.stdout)[0]["documentId"]

    (folder / "b.md").write_bytes(b"\x00\x01\x02binary" * 300)
    broken = run(data_dir, "rebuild", "Notes", "--document", "b.md")
    assert broken.returncode == 1
    assert "binary" in broken.stdout and "previous version is still searchable" in broken.stdout
    listed = run(data_dir, "documents", "Notes", "--filter", "failed", "--json")
    assert [d["path"] for d in json.loads(listed.stdout)["documents"]] == ["b.md"]

    missing = run(data_dir, "rebuild", "Notes", "--document", "nope.md")
    assert missing.returncode == 1 and "not_found" in missing.stderr
    failing = run(data_dir, "rebuild", "Notes")
    assert failing.returncode == 1 and "1 failed" in failing.stdout
