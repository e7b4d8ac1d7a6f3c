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
