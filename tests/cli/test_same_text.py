"""The same text at two places (a file copied into another folder of the library) takes one
place in the results, naming the other, through a real backend and `goodbuddy-kb retrieve`:
the workbench had listed the passage twice, pushing a different passage out of the top K."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.bridge.launcher import BackendProcess
from tests.cli.runner import cli_json, run

pytestmark = pytest.mark.integration

POLICY = "# 差旅制度\n\n出差住宿标准：一线城市每晚不超过 600 元，超标部分自行承担。\n"


def test_a_copied_file_takes_one_place_and_is_named_under_it(
    data_dir: Path, backend: BackendProcess, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    (docs / "old").mkdir(parents=True)
    (docs / "policy.md").write_text(POLICY, encoding="utf-8")
    (docs / "old" / "policy-copy.md").write_text(POLICY, encoding="utf-8")
    (docs / "meals.md").write_text("# 餐补\n\n出差伙食补贴每天 80 元。\n", encoding="utf-8")
    assert run(data_dir, "library", "create", "L").returncode == 0
    assert run(data_dir, "source", "add", "L", str(docs), "--no-watch").returncode == 0
    run(data_dir, "sync", "L")

    answer = cli_json(data_dir, "retrieve", "L", "出差住宿标准")
    listed = answer["results"] + answer["belowFloor"]  # meals.md may fall below the floor
    paths = [x["documentPath"] for x in listed]
    assert len(paths) == len(set(paths)) and len(paths) == 2, paths
    first = listed[0]
    assert first["documentPath"] in ("policy.md", "old/policy-copy.md"), paths
    others = [d["documentPath"] for d in first["sameText"]]
    assert others == [p for p in ("policy.md", "old/policy-copy.md") if p != first["documentPath"]]
    assert listed[1]["documentPath"] == "meals.md"

    shown = run(data_dir, "retrieve", "L", "出差住宿标准").stdout
    assert "the same text is also in: " + others[0] in shown, shown
