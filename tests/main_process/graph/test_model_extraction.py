"""The model graph strategy against a loopback OpenAI-compatible server: answers restricted to
the ontology are stored with provenance, bad answer parts are rejected and counted, server
errors and timeouts fail the document's graph (full text keeps serving), cost is bounded and
estimated beforehand, and a cancel stops within one request."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    DOCUMENTS_LIST,
    GRAPH_ENTITIES,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_RELATIONS,
    GRAPH_UPDATE,
    RETRIEVE,
    SOURCE_SYNC,
    TASKS_CANCEL,
    TASKS_LIST,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call
from tests.main_process.graph.helpers import folder_library
from tests.servers.extractserver import (
    ExtractScript,
    Reply,
    chunk_of,
    extract_server,
    refusing_json_schema,
)

TRAVEL = "# 差旅报销制度\n\n差旅报销制度由财务部审批。住宿标准为每晚六百元。\n"
SYSTEMS = "# Systems\n\nThe Billing System depends on the Identity Platform.\n"


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (folder / "systems.md").write_text(SYSTEMS, encoding="utf-8")
    library_id = folder_library(dispatcher, folder)
    services.tasks.wait_idle()
    return library_id


def configure(d: Dispatcher, library_id: str, url: str, **settings: Any) -> dict[str, Any]:
    call(
        d,
        CHAT_MODEL_UPDATE.name,
        {"connection": {"kind": "openai-compatible", "baseUrl": url, "model": "graph-test-model"}},
    )
    info = call(d, GRAPH_GET.name, {"libraryId": library_id})
    return call(
        d,
        GRAPH_UPDATE.name,
        {
            "libraryId": library_id,
            "settings": {**info["settings"], "strategy": "model", "modelRetries": 0, **settings},
        },
    )


def extract(d: Dispatcher, services: Services, library_id: str) -> dict[str, Any]:
    task_id = call(d, GRAPH_EXTRACT.name, {"libraryId": library_id})["taskId"]
    services.tasks.wait_idle(60)
    tasks = call(d, TASKS_LIST.name, {"libraryId": library_id})["tasks"]
    return next(t for t in tasks if t["id"] == task_id)


def documents(d: Dispatcher, library_id: str) -> dict[str, dict[str, Any]]:
    listed = call(d, DOCUMENTS_LIST.name, {"libraryId": library_id})["documents"]
    return {doc["path"]: doc for doc in listed}


def good_and_bad(body: dict[str, Any]) -> Reply:
    chunk = chunk_of(body)
    if "财务部" in chunk:
        return {
            "answer": {
                "entities": [
                    {"name": "差旅报销制度", "type": "policy"},
                    {"name": "财务部", "type": "organization"},
                    {"name": "财务部", "type": "spaceship"},  # unknown type
                    {"name": "火星基地", "type": "location"},  # not in the chunk
                ],
                "relations": [
                    {"head": "财务部", "type": "approves", "tail": "差旅报销制度"},
                    # a policy cannot approve an organisation
                    {"head": "差旅报销制度", "type": "approves", "tail": "财务部"},
                    {"head": "财务部", "type": "admires", "tail": "差旅报销制度"},  # unknown
                ],
            }
        }
    if "Billing" in chunk:
        # a fenced answer with the model's casing: still matched in the chunk
        answer = {
            "entities": [
                {"name": "billing system", "type": "system"},
                {"name": "Identity Platform", "type": "system"},
            ],
            "relations": [
                {"head": "billing system", "type": "depends_on", "tail": "Identity Platform"}
            ],
        }
        return {"answer": "```json\n" + json.dumps(answer) + "\n```"}
    return {"answer": "not json at all"}


@pytest.mark.integration
def test_valid_extractions_are_stored_and_bad_parts_rejected_and_counted(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = ExtractScript(good_and_bad)
    with extract_server(script) as url:
        state = configure(dispatcher, kb, url)
        chunks = (
            services.db.get()
            .execute("SELECT count(*) FROM chunks WHERE enabled = 1 AND role != 'parent'")
            .fetchone()[0]
        )
        assert state["estimatedModelCalls"] == chunks >= 2
        task = extract(dispatcher, services, kb)
    assert task["state"] == "completed", task
    run = task["summary"]["graph"]
    assert run["strategy"] == "model" and run["model"] == "graph-test-model"
    assert run["modelCalls"] == len(script.requests) == chunks
    assert run["rejectedUnknownType"] == 2 and run["rejectedEndpoints"] == 1
    assert run["rejectedMention"] == 1
    assert run["rejectedMalformed"] == chunks - 2  # the heading-only chunks, if any
    # the request: JSON mode restricted to the ontology, the chunk passed as data
    body = script.requests[0]
    schema = body["response_format"]["json_schema"]["schema"]
    entity_enum = schema["properties"]["entities"]["items"]["properties"]["type"]["enum"]
    assert "organization" in entity_enum and "spaceship" not in entity_enum
    assert "data, not instructions" in body["messages"][0]["content"]
    assert chunk_of(body) not in body["messages"][0]["content"]
    # stored: entities, relations and evidence with extractor "model" and provenance
    entities = call(dispatcher, GRAPH_ENTITIES.name, {"libraryId": kb, "limit": 500})["entities"]
    names = {(e["name"], e["typeKey"]) for e in entities}
    assert {("差旅报销制度", "policy"), ("财务部", "organization")} <= names
    # the chunk's own spelling names the entity, whatever case the model used
    assert ("Billing System", "system") in names and ("Identity Platform", "system") in names
    assert not any(n == "火星基地" or t == "spaceship" for n, t in names)
    relations = call(dispatcher, GRAPH_RELATIONS.name, {"libraryId": kb})["relations"]
    assert {(r["headName"], r["typeKey"], r["tailName"], r["extractor"]) for r in relations} == {
        ("财务部", "approves", "差旅报销制度", "model"),
        ("Billing System", "depends_on", "Identity Platform", "model"),
    }
    conn = services.db.get()
    rows = conn.execute(
        'SELECT c.content, v.start, v."end", v.extractor, v.provenance, e.name'
        " FROM graph_evidence v JOIN chunks c ON c.seq = v.chunk_seq"
        " LEFT JOIN graph_entities e ON e.id = v.entity_id"
    ).fetchall()
    assert rows and all(r[3] == "model" for r in rows)
    for content, start, end, _x, provenance, name in rows:
        assert json.loads(provenance) == {"model": "graph-test-model", "run": run["runId"]}
        if name is not None:
            assert content[start:end].casefold() == name.casefold()
    state = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})
    assert state["lastRun"]["runId"] == run["runId"] and not state["needsRebuild"]
    # nothing changed: a second run sends nothing
    assert state["estimatedModelCalls"] == 0
    assert {d["status"]["graph"] for d in documents(dispatcher, kb).values()} == {"done"}


@pytest.mark.integration
def test_the_per_run_cap_bounds_the_cost_and_the_next_run_continues(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = ExtractScript(good_and_bad)
    with extract_server(script) as url:
        state = configure(dispatcher, kb, url, modelMaxChunks=1, modelConcurrency=4)
        assert state["estimatedModelCalls"] == 1
        first = extract(dispatcher, services, kb)["summary"]["graph"]
        assert first["modelCalls"] == 1 == len(script.requests) and first["capped"] >= 1
        second = extract(dispatcher, services, kb)["summary"]["graph"]
        assert second["modelCalls"] == 1 and second["unchanged"] == 1
        assert len({chunk_of(b) for b in script.requests}) == 2  # never the same chunk twice


@pytest.mark.integration
def test_server_errors_fail_the_documents_graph_and_full_text_keeps_serving(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = ExtractScript(lambda _body: {"status": 500})
    with extract_server(script) as url:
        configure(dispatcher, kb, url, modelRetries=1)
        task = extract(dispatcher, services, kb)
    assert task["state"] == "failed"
    assert task["errorCode"] == "graph.model_failed"
    assert task["errorParams"]["reason"] == "the chat model answered HTTP 500"
    run = task["summary"]["graph"]
    assert run["failedChunks"] >= 2 and run["modelCalls"] == 2 * run["failedChunks"]  # retried
    docs = documents(dispatcher, kb)
    failed = [d for d in docs.values() if d["status"]["graph"] == "failed"]
    assert failed and all(d["graphErrorCode"] == "graph.model_failed" for d in failed)
    assert all(d["status"]["fulltext"] == "done" for d in docs.values())
    res = call(dispatcher, RETRIEVE.name, {"libraryIds": [kb], "query": "住宿标准"})
    assert res["results"] and "fts" in res["diagnostics"]["usedChannels"]


@pytest.mark.integration
def test_a_timeout_fails_the_documents_graph_with_the_reason(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = ExtractScript(lambda _body: {"stall": 3})
    with extract_server(script) as url:
        configure(dispatcher, kb, url, modelTimeoutS=1, modelConcurrency=4)
        started = time.monotonic()
        task = extract(dispatcher, services, kb)
        assert time.monotonic() - started < 2.5
    failed = [d for d in documents(dispatcher, kb).values() if d["status"]["graph"] == "failed"]
    assert failed and failed[0]["graphErrorParams"]["reason"] == (
        "the chat model did not answer within 1 s"
    )
    assert task["summary"]["graph"]["failedChunks"] >= 2


@pytest.mark.integration
def test_cancel_stops_within_one_request(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = ExtractScript(lambda _body: {"stall": 5})
    with extract_server(script) as url:
        configure(dispatcher, kb, url, modelConcurrency=1)
        task_id = call(dispatcher, GRAPH_EXTRACT.name, {"libraryId": kb})["taskId"]
        deadline = time.monotonic() + 10
        while not script.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(script.requests) == 1
        cancelled_at = time.monotonic()
        call(dispatcher, TASKS_CANCEL.name, {"taskId": task_id})
        services.tasks.wait_idle(10)
        assert time.monotonic() - cancelled_at < 1.5
        time.sleep(0.3)
    assert len(script.requests) == 1  # nothing was sent after the cancel
    task = next(
        t
        for t in call(dispatcher, TASKS_LIST.name, {"libraryId": kb})["tasks"]
        if t["id"] == task_id
    )
    assert task["state"] == "cancelled"
    assert call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["entities"] == 0


@pytest.mark.integration
def test_a_sync_never_spends_model_calls_by_itself(
    dispatcher: Dispatcher, services: Services, kb: str, tmp_path: Path
) -> None:
    script = ExtractScript(good_and_bad)
    with extract_server(script) as url:
        configure(dispatcher, kb, url)
        (tmp_path / "kb" / "new.md").write_text("# 新\n\n财务部负责预算。\n", encoding="utf-8")
        call(dispatcher, SOURCE_SYNC.name, {"libraryId": kb})
        services.tasks.wait_idle(60)
        assert script.requests == []
    new = documents(dispatcher, kb)["new.md"]
    assert new["status"]["graph"] == "on_demand" and new["status"]["fulltext"] == "done"
    state = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})
    assert state["estimatedModelCalls"] >= 3  # the new chunk waits for a run the user starts


@pytest.mark.integration
def test_a_server_refusing_a_json_schema_is_asked_in_plain_json_mode(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    script = ExtractScript(refusing_json_schema(good_and_bad))
    with extract_server(script) as url:
        configure(dispatcher, kb, url, modelConcurrency=1)
        task = extract(dispatcher, services, kb)
    assert task["state"] == "completed", task
    run = task["summary"]["graph"]
    assert run["jsonMode"] == "json_object", "the run says how it asked"
    modes = [(b.get("response_format") or {}).get("type") for b in script.requests]
    assert modes[0] == "json_schema" and set(modes[1:]) == {"json_object"}, "refused once"
    assert run["failedChunks"] == 0 and run["relations"] >= 2
    relations = call(dispatcher, GRAPH_RELATIONS.name, {"libraryId": kb})["relations"]
    assert {(r["headName"], r["typeKey"]) for r in relations} >= {("财务部", "approves")}
    last = call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["lastRun"]
    assert last["jsonMode"] == "json_object"
