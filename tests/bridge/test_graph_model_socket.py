"""Model graph extraction over the real socket against a real backend process and a loopback
chat server: after a good run, a model that answers 100,000-deep JSON, or prose, neither
crashes the backend nor replaces the graph; each run fails with its coded reason and counts
the rejected answers in its summary."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import graph as g
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as c
from goodbuddy_kb.contracts import tasks as t
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
    LIBRARY_CREATE,
    NOTIFY_TASK,
    SOURCE_ADD,
)
from tests.bridge.helpers import graph_off
from tests.servers.sse import sse_server

pytestmark = pytest.mark.integration

TEXT = "# 差旅报销制度\n\n差旅报销制度由财务部审批。住宿标准为每晚六百元。\n"
GOOD = {
    "entities": [
        {"name": "差旅报销制度", "type": "policy"},
        {"name": "财务部", "type": "organization"},
    ],
    "relations": [{"head": "财务部", "type": "approves", "tail": "差旅报销制度"}],
}


def content(text: str) -> list[str]:
    return [json.dumps({"choices": [{"delta": {"content": text}}]})]


@contextmanager
def raw_server(answer: list[Callable[[], list[str]]]) -> Iterator[str]:
    with sse_server(lambda _body: answer[0]()) as url:
        yield url


def wait_task(client: BlockingClient, task_id: str, timeout: float = 60) -> t.TaskInfo:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        method, params = client.next_notification(timeout=timeout)
        if method == NOTIFY_TASK.name and params["id"] == task_id:
            info = t.TaskInfo.model_validate(params)
            if info.state in t.FINISHED_STATES:
                return info
    raise AssertionError("task did not finish")


def use_model(client: BlockingClient, library_id: str, url: str, model: str) -> None:
    connection = ch.ChatConnection(kind="openai-compatible", base_url=url, model=model)
    client.call(CHAT_MODEL_UPDATE, ch.ChatUpdateRequest(connection=connection))
    info = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
    settings = info.settings.model_copy(update={"strategy": "model", "model_retries": 0})
    client.call(GRAPH_UPDATE, g.GraphUpdateRequest(library_id=library_id, settings=settings))


def extract(client: BlockingClient, library_id: str) -> t.TaskInfo:
    task = client.call(GRAPH_EXTRACT, g.GraphExtractRequest(library_id=library_id))
    return wait_task(client, task.task_id)


def test_hostile_answers_keep_the_graph_over_the_socket(
    client: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text(TEXT, "utf-8")
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="KB")).library.id
    graph_off(client, library_id)  # only what the model extracts, nothing local beside it
    added = client.call(
        SOURCE_ADD,
        c.SourceAddRequest(library_id=library_id, kind="folder", location=str(folder), watch=False),
    )
    assert added.task_id is not None
    wait_task(client, added.task_id)
    answer: list[Callable[[], list[str]]] = [lambda: content(json.dumps(GOOD))]
    with raw_server(answer) as url:
        use_model(client, library_id, url, "good-model")
        assert extract(client, library_id).state == "completed"
        before = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
        assert before.entities == 2 and before.relations == 1 and before.evidence > 0
        hostile = {
            "deep": (lambda: ["[" * 100_000 + "]" * 100_000], "graph.answer_stream"),
            "prose": (
                lambda: content("Sure! Here are the entities: none."),
                "graph.answer_not_json",
            ),
        }
        for name, (stream, code) in hostile.items():
            answer[0] = stream
            use_model(client, library_id, url, f"{name}-model")
            task = extract(client, library_id)
            assert task.state == "failed" and task.error_code == "graph.answers_all_rejected"
            assert task.summary is not None and task.summary.graph is not None
            assert task.summary.graph.rejected_answers == {code: 1}
            after = client.call(GRAPH_GET, g.GraphGetRequest(library_id=library_id))
            assert (after.entities, after.relations, after.evidence) == (
                before.entities,
                before.relations,
                before.evidence,
            )
