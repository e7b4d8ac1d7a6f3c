"""`goodbuddy-kb graph LIB extract --strategy model` as a user runs it: the estimated number of
model calls is printed before the run starts, against a loopback chat model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts.chat import ChatConnection, ChatUpdateRequest
from goodbuddy_kb.contracts.methods import CHAT_MODEL_UPDATE
from tests.cli.runner import run
from tests.servers.extractserver import ExtractScript, Reply, chunk_of, extract_server

pytestmark = pytest.mark.integration


def answer(body: dict[str, object]) -> Reply:
    chunk = chunk_of(body)  # type: ignore[arg-type]
    if "财务部" not in chunk:
        return {"answer": {"entities": [], "relations": []}}
    return {
        "answer": {
            "entities": [
                {"name": "财务部", "type": "organization"},
                {"name": "差旅报销制度", "type": "policy"},
            ],
            "relations": [{"head": "财务部", "type": "approves", "tail": "差旅报销制度"}],
        }
    }


def test_model_extract_prints_the_estimate_first(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# 差旅\n\n差旅报销制度由财务部审批。\n", "utf-8")
    assert run(data_dir, "library", "create", "Notes").returncode == 0
    assert run(data_dir, "source", "add", "Notes", str(folder)).returncode == 0
    refused = run(data_dir, "graph", "extract", "Notes", "--strategy", "model")
    assert refused.returncode == 1 and "no chat model is configured" in refused.stderr
    # a switch that cannot run is not made (it left the library on "model", its graph waiting)
    assert "the strategy stays local" in refused.stderr
    kept = json.loads(run(data_dir, "graph", "status", "Notes", "--json").stdout)
    assert kept["settings"]["strategy"] == "local"
    script = ExtractScript(answer)
    with extract_server(script) as url:
        connection = ChatConnection(kind="openai-compatible", base_url=url, model="m1")
        client.call(CHAT_MODEL_UPDATE, ChatUpdateRequest(connection=connection))
        done = run(data_dir, "graph", "extract", "Notes", "--strategy", "model")
        assert done.returncode == 0, done.stdout + done.stderr
        first_line = done.stdout.splitlines()[0]
        assert first_line.startswith("estimated model calls: 1 ") and "at most 200" in first_line
        assert len(script.requests) == 1
    status = json.loads(run(data_dir, "graph", "status", "Notes", "--json").stdout)
    assert status["estimatedModelCalls"] == 0 and status["lastRun"]["modelCalls"] == 1
    text = run(data_dir, "graph", "status", "Notes").stdout
    assert "next model run: 0 calls" in text and "1 model call, 0 answer parts rejected" in text
    shown = run(data_dir, "graph", "show", "Notes", "财务部")
    assert "财务部 —approves→ 差旅报销制度" in shown.stdout
    # under each relation, the sentence it was read from
    below = shown.stdout.split("财务部 —approves→ 差旅报销制度\n", 1)[1].splitlines()[0]
    assert below.strip() == "“差旅报销制度由财务部审批。” (a.md)", below
    # the documents list says what the graph found in each document, not "done" alone
    listed = run(data_dir, "documents", "Notes").stdout.splitlines()
    header = next(line for line in listed if line.startswith("parse"))
    row = next(line for line in listed if line.endswith("a.md"))
    assert header.split()[:6] == ["parse", "fulltext", "vector", "graph", "entities", "chunks"]
    assert row.split()[3:5] == ["done", "2"], row
    wire = json.loads(run(data_dir, "documents", "Notes", "--json").stdout)["documents"][0]
    assert (wire["graphEntities"], wire["graphRelations"]) == (2, 1)


def test_one_thing_named_two_ways_is_one_entity(data_dir: Path, tmp_path: Path) -> None:
    # notes that name a unit each in its own way, and one that says the two names are one:
    # the graph listed 财务部 beside 财务管理部 and "International Business Department"
    # beside 国际业务部, each with half the relations (a helper's try on company-graph-dev)
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a-faq.md").write_text(
        "# 常见问题\n\n费控系统由财务部维护。出口报价请找国际业务部。\n\n"
        "国际业务部不再隶属于营销中心，改为直接向总经理汇报。公司总经理为顾承泽。\n",
        "utf-8",
    )
    (folder / "b-org.md").write_text(
        "# Org chart\n\nThe International Business Department reports to the General Manager.\n",
        "utf-8",
    )
    (folder / "c-finance.md").write_text(
        "# 财务管理部介绍\n\n财务管理部（简称“财务部”）设在A栋5楼。\n\n"
        "The International Business Department (国际业务部) is run by Jason He and sits on the"
        " 7th floor of Building A.\n",
        "utf-8",
    )
    assert run(data_dir, "library", "create", "Notes").returncode == 0
    assert run(data_dir, "source", "add", "Notes", str(folder)).returncode == 0
    listed = json.loads(run(data_dir, "graph", "entities", "Notes", "--json").stdout)
    names = {e["name"]: e for e in listed["entities"]}
    finance = [n for n in names if n in ("财务部", "财务管理部")]
    assert len(finance) == 1, sorted(names)
    assert {"财务部", "财务管理部"} <= {finance[0], *names[finance[0]]["aliases"]}
    business = [n for n in names if n in ("国际业务部", "International Business Department")]
    assert len(business) == 1, sorted(names)
    shown = run(data_dir, "graph", "show", "Notes", "国际业务部").stdout
    assert "General Manager" in shown and "Building A" in shown, shown
    # the unit now has a head of its own (a person), and the question asks whom it reports to:
    # the relation its words cue leads the way, to the general manager and who that is
    asked = run(data_dir, "--json", "retrieve", "Notes", "国际业务部现在直接向哪位领导汇报？")
    paths = json.loads(asked.stdout)["diagnostics"]["graphPaths"]
    assert paths and all("顾承泽" in p and "Jason He" not in p for p in paths), paths
