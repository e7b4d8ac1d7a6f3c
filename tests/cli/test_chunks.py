"""`goodbuddy-kb chunks` and `goodbuddy-kb chunk …` as a user runs them: a real process and a
real backend."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.runner import run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def test_list_show_edit_disable_enable_delete(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    body = "".join(
        f"## Part {n}\n\nPart {n} text about rule{n} 报销第{n}条。\n\n" for n in (1, 2, 3)
    )
    (folder / "a.md").write_text(f"# A\n\n{body}", "utf-8")
    assert run(data_dir, "library", "create", "Notes").returncode == 0
    assert run(data_dir, "source", "add", "Notes", str(folder)).returncode == 0

    listed = run(data_dir, "chunks", "Notes", "a.md", "--json")
    assert listed.returncode == 0, listed.stderr
    chunks = json.loads(listed.stdout)["chunks"]
    assert [c["ordinal"] for c in chunks] == [0, 1, 2]
    text = run(data_dir, "chunks", "Notes", "a.md", "--search", "rule2")
    assert text.returncode == 0 and "a.md: 1 chunk containing “rule2”" in text.stdout
    assert chunks[1]["id"][:12] in text.stdout and "A > Part 2" in text.stdout

    prefix = chunks[1]["id"][:8]
    shown = run(data_dir, "chunk", "show", "Notes", "a.md", prefix)
    assert shown.returncode == 0 and "Part 2 text about rule2" in shown.stdout

    edited = run(
        data_dir, "chunk", "edit", "Notes", "a.md", prefix, "--content", "Fixed: okapi 霍加狓。"
    )
    assert edited.returncode == 0, edited.stderr
    assert (
        "edited chunk #2 of a.md" in edited.stdout and "overwrites manual changes" in edited.stderr
    )
    found = json.loads(run(data_dir, "retrieve", "Notes", "okapi", "--json").stdout)
    assert found["results"][0]["chunkId"] == chunks[1]["id"]

    assert run(data_dir, "chunk", "disable", "Notes", "a.md", prefix).returncode == 0
    # said apart from the rest (`documents` counts only those searched)
    assert "a.md: 3 chunks (1 switched off)" in run(data_dir, "chunks", "Notes", "a.md").stdout
    gone = json.loads(run(data_dir, "retrieve", "Notes", "okapi", "--json").stdout)
    assert chunks[1]["id"] not in [r["chunkId"] for r in gone["results"]]
    assert run(data_dir, "chunk", "enable", "Notes", "a.md", prefix).returncode == 0

    refused = run(data_dir, "chunk", "delete", "Notes", "a.md", prefix)
    assert refused.returncode == 1 and "without --yes" in refused.stderr
    deleted = run(data_dir, "chunk", "delete", "Notes", "a.md", prefix, "--yes")
    assert deleted.returncode == 0 and "the file was not touched" in deleted.stdout
    assert (folder / "a.md").read_text("utf-8").startswith("# A")
    after = json.loads(run(data_dir, "chunks", "Notes", "a.md", "--json").stdout)["chunks"]
    assert [c["id"] for c in after] == [chunks[0]["id"], chunks[2]["id"]]

    missing = run(data_dir, "chunk", "show", "Notes", "a.md", "ffffffffff")
    assert missing.returncode == 1 and "not_found" in missing.stderr
    short = run(data_dir, "chunk", "show", "Notes", "a.md", "abc")
    assert short.returncode == 1 and "invalid_request" in short.stderr
    for chunk in after:
        run(data_dir, "chunk", "delete", "Notes", "a.md", chunk["id"], "--yes")
    docs = json.loads(run(data_dir, "documents", "Notes", "--json").stdout)
    assert docs["summary"]["noRetrievableContent"] == 1


def test_a_file_edit_that_turns_a_disabled_chunk_back_on_says_so(
    data_dir: Path, tmp_path: Path
) -> None:
    """A person turned a chunk off; the file's author then changed a word in it ("6 小时" →
    "5 小时"). The sync turned the new wording on and said only "(1 written)" (a helper's try):
    it now says the manual work was dropped, and where. A paragraph removed from the file is
    no such loss: nothing of it is searchable again."""
    folder = tmp_path / "notes"
    folder.mkdir()
    body = "# 差旅\n\n## 住宿\n\n一线城市每晚 600 元。\n\n## 交通\n\n火车超过 6 小时可乘飞机。\n"
    (folder / "t.md").write_text(body + "\n## 餐补\n\n每天 80 元。\n", "utf-8")
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(folder), "--no-watch").returncode == 0
    run(data_dir, "sync", "L")
    chunks = json.loads(run(data_dir, "chunks", "L", "t.md", "--json").stdout)["chunks"]
    travel, meals = chunks[1]["id"][:8], chunks[2]["id"][:8]
    assert run(data_dir, "chunk", "disable", "L", "t.md", travel).returncode == 0
    assert run(data_dir, "chunk", "disable", "L", "t.md", meals).returncode == 0

    (folder / "t.md").write_text(body.replace("6 小时", "5 小时"), "utf-8")  # 餐补 removed
    synced = run(data_dir, "sync", "L")
    assert synced.returncode == 0, synced.stderr
    assert "manual work on 1 chunk discarded in t.md" in synced.stdout, synced.stdout
