"""File names that are not valid UTF-8 (archives unpacked under an old Windows code page): the
whole sync, the task list and retrieval keep working, and the file itself is indexed and found."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.paths import (
    has_undecodable_bytes,
    os_path,
    readable_path,
    wire_path,
)

pytestmark = pytest.mark.integration


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data_dir), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_wire_form_is_lossless_utf8_and_readable() -> None:
    name = os.fsdecode(b"\xb2\xe2\xca\xd4\xb9\xe6\xb6\xa8.md")  # 测试规定.md in GBK
    wire = wire_path(name)
    wire.encode("utf-8")  # what SQLite and JSON need
    assert os_path(wire) == name
    readable = readable_path(wire)
    assert readable.startswith("\ufffd") and readable.endswith(".md")
    assert readable == name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    assert wire_path("普通文件.md") == "普通文件.md" == os_path("普通文件.md")


@pytest.mark.skipif(sys.platform != "linux", reason="only POSIX file names are bytes")
def test_a_file_name_that_is_not_utf8_fails_nothing(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    # Sorts before every good file, so it is the first file the sync reads.
    bad = os.fsencode(folder) + b"/\xa1\xb0\xb2\xe2\xca\xd4.md"
    with open(bad, "wb") as f:
        f.write("# 报销\n\n差旅报销须在出差结束后三十日内提交，逾期不予受理。\n".encode())
    for i in range(20):
        (folder / f"note{i:02d}.md").write_text(f"# Note {i}\n\nOrdinary note number {i}.\n")

    created = cli(data_dir, "--json", "library", "create", "Archive")
    assert created.returncode == 0, created.stderr
    added = cli(data_dir, "source", "add", "Archive", str(folder))
    assert added.returncode == 0, added.stderr

    docs = cli(data_dir, "--json", "documents", "Archive")
    assert docs.returncode == 0, docs.stderr
    listed = json.loads(docs.stdout)
    rows = listed["documents"] if isinstance(listed, dict) else listed
    assert len(rows) == 21
    assert all(d["status"]["parse"] == d["status"]["fulltext"] == "done" for d in rows), rows

    shown = cli(data_dir, "documents", "Archive").stdout  # people read a marker, not the bytes
    assert "\ufffd" in shown and not has_undecodable_bytes(shown)

    tasks = cli(data_dir, "--json", "tasks")
    assert tasks.returncode == 0, tasks.stderr
    assert json.loads(tasks.stdout)

    found = cli(data_dir, "--json", "retrieve", "Archive", "差旅报销逾期")
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert results and "三十日" in results[0]["snippet"]
    # The path it reports opens the very file it was read from.
    path = results[0]["documentPath"]
    assert os.fsencode(os_path(path)).endswith(b"\xa1\xb0\xb2\xe2\xca\xd4.md")

    again = cli(data_dir, "sync", "Archive")  # an unchanged file is not read again, nor crashes
    assert again.returncode == 0, again.stderr
