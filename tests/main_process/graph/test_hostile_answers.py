"""Hostile chat-model answers during model graph extraction, through the real backend against a
loopback OpenAI-compatible server that sends each hostile stream as raw SSE lines: a wrong
shape (``choices[0]`` a string, ``delta`` a list, string ``tool_calls``…), 100,000-deep JSON
in an event or in the answer, prose, an empty answer, or names of which nothing holds up. None
is an internal error: each is that chunk's rejected answer, counted by reason in the run's
summary; after a good run the previous graph (entities, relations, evidence) survives a bad
one — and so does a run whose every answer is empty, or whose provider is down — and the run
fails with a coded reason instead of reporting "completed"."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    DOCUMENTS_LIST,
    GRAPH_EXTRACT,
    GRAPH_GET,
    GRAPH_UPDATE,
    TASKS_LIST,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call
from tests.main_process.graph.helpers import folder_library
from tests.servers.sse import sse_server

TRAVEL = "# 差旅报销制度\n\n差旅报销制度由财务部审批。住宿标准为每晚六百元。\n"
SYSTEMS = "# Systems\n\nThe Billing System depends on the Identity Platform.\n"
DEEP = 100_000
BILLING_ONLY = json.dumps(
    {"entities": [{"name": "Billing System", "type": "system"}], "relations": []}
)

#: The chunk's text → the raw ``data:`` payloads the server streams for it (None: HTTP 500).
Answer = Callable[[str], list[str] | None]


def content(text: str) -> list[str]:
    """A well-formed stream whose reply text is ``text``."""
    return [
        json.dumps({"choices": [{"index": 0, "delta": {"content": text[i : i + 32]}}]})
        for i in range(0, len(text), 32)
    ]


def good(chunk: str) -> list[str]:
    if "财务部" in chunk:
        answer = {
            "entities": [
                {"name": "差旅报销制度", "type": "policy"},
                {"name": "财务部", "type": "organization"},
            ],
            "relations": [{"head": "财务部", "type": "approves", "tail": "差旅报销制度"}],
        }
    else:
        answer = {
            "entities": [
                {"name": "Billing System", "type": "system"},
                {"name": "Identity Platform", "type": "system"},
            ],
            "relations": [
                {"head": "Billing System", "type": "depends_on", "tail": "Identity Platform"}
            ],
        }
    return content(json.dumps(answer, ensure_ascii=False))


@contextmanager
def raw_server(answer: list[Answer]) -> Iterator[str]:
    """Streams ``answer[0](chunk)`` as SSE lines for every request (a list, so a test can swap
    the answer between runs), then ``[DONE]``."""

    def payloads(body: dict[str, Any]) -> list[str] | None:
        user = next(m for m in body["messages"] if m["role"] == "user")
        return answer[0](json.loads(user["content"])["chunk"])

    with sse_server(payloads) as url:
        yield url


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (folder / "systems.md").write_text(SYSTEMS, encoding="utf-8")
    library_id = folder_library(dispatcher, folder)
    services.tasks.wait_idle()
    return library_id


def use_model(d: Dispatcher, library_id: str, url: str, model: str) -> None:
    """The chat model ``model`` at ``url``; a new model name makes every chunk pending again."""
    call(
        d,
        CHAT_MODEL_UPDATE.name,
        {"connection": {"kind": "openai-compatible", "baseUrl": url, "model": model}},
    )
    info = call(d, GRAPH_GET.name, {"libraryId": library_id})
    settings = {**info["settings"], "strategy": "model", "modelRetries": 0}
    call(d, GRAPH_UPDATE.name, {"libraryId": library_id, "settings": settings})


def extract(d: Dispatcher, services: Services, library_id: str) -> dict[str, Any]:
    task_id = call(d, GRAPH_EXTRACT.name, {"libraryId": library_id})["taskId"]
    services.tasks.wait_idle(60)
    tasks = call(d, TASKS_LIST.name, {"libraryId": library_id})["tasks"]
    return next(t for t in tasks if t["id"] == task_id)


def graph(services: Services) -> tuple[set[tuple[str, str]], set[str], int]:
    """Entities (name, type), relation types, and model evidence rows."""
    conn = services.db.get()
    entities = {(r[0], r[1]) for r in conn.execute("SELECT name, type_key FROM graph_entities")}
    relations = {r[0] for r in conn.execute("SELECT type_key FROM graph_relations")}
    (evidence,) = conn.execute(
        "SELECT count(*) FROM graph_evidence WHERE extractor = 'model'"
    ).fetchone()
    return entities, relations, int(evidence)


def deep(opening: str, closing: str) -> str:
    return opening * DEEP + closing * DEEP


#: (name, what the server streams, the reason code the run's summary counts)
HOSTILE: list[tuple[str, Answer, str]] = [
    ("choice is a string", lambda _c: ['{"choices": ["x"]}'], "graph.answer_stream"),
    ("choices is a string", lambda _c: ['{"choices": "abc"}'], "graph.answer_stream"),
    ("delta is a list", lambda _c: ['{"choices": [{"delta": [1, 2]}]}'], "graph.answer_stream"),
    (
        "tool_calls is a string",
        lambda _c: ['{"choices": [{"delta": {"tool_calls": "call"}}]}'],
        "graph.answer_stream",
    ),
    (
        "tool call index is a string",
        lambda _c: ['{"choices": [{"delta": {"tool_calls": [{"index": "x"}]}}]}'],
        "graph.answer_stream",
    ),
    (
        "tool call function is a string",
        lambda _c: ['{"choices": [{"delta": {"tool_calls": [{"function": "f"}]}}]}'],
        "graph.answer_stream",
    ),
    ("deep event", lambda _c: [deep("[", "]")], "graph.answer_stream"),
    (
        "deep answer",
        # 20,000 levels: within the answer's length cap, far past the parser's recursion
        lambda _c: content('{"entities": ' + "[" * 20_000 + "]" * 20_000 + "}"),
        "graph.answer_too_deep",
    ),
    (
        "8 MB answer",
        lambda _c: content('{"entities": [' + "[]," * 2_700_000 + "[]]}"),
        "graph.answer_too_long",
    ),
    ("prose", lambda _c: content("I am sorry, I cannot help with that."), "graph.answer_not_json"),
    ("empty", lambda _c: [], "graph.answer_empty"),
    (
        "wrong lists",
        lambda _c: content('{"entities": "none", "relations": {}}'),
        "graph.answer_shape",
    ),
    (
        "nothing holds up",
        lambda _c: content(
            json.dumps({"entities": [{"name": "火星基地", "type": "spaceship"}], "relations": []})
        ),
        "graph.answer_nothing_valid",
    ),
]


@pytest.mark.parametrize(("answer", "code"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_a_hostile_answer_after_a_good_run_keeps_the_graph_and_says_why(
    dispatcher: Dispatcher, services: Services, kb: str, answer: Answer, code: str
) -> None:
    serving: list[Answer] = [good]
    with raw_server(serving) as url:
        use_model(dispatcher, kb, url, "good-model")
        first = extract(dispatcher, services, kb)
        assert first["state"] == "completed", first
        before = graph(services)
        assert before[2] > 0 and {"approves", "depends_on"} <= before[1]
        serving[0] = answer
        use_model(dispatcher, kb, url, "hostile-model")
        task = extract(dispatcher, services, kb)
    assert task["state"] == "failed", task
    assert "internal" not in (task["error"] or "")
    assert task["errorCode"] == "graph.answers_all_rejected", task
    run = task["summary"]["graph"]
    asked = run["modelCalls"]
    assert asked >= 2 and run["chunks"] == 0 and run["failedChunks"] == 0
    assert run["rejectedAnswers"] == {code: asked}
    assert graph(services) == before  # nothing was replaced, nothing pruned
    docs = call(dispatcher, DOCUMENTS_LIST.name, {"libraryId": kb})["documents"]
    assert {d["status"]["graph"] for d in docs} == {"failed"}
    assert {d["graphErrorCode"] for d in docs} == {"graph.answer_rejected"}
    # the rejected chunks are asked again next run
    assert call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["estimatedModelCalls"] == asked


def test_a_rejected_chunk_keeps_its_extraction_while_the_others_are_replaced(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    serving: list[Answer] = [good]
    with raw_server(serving) as url:
        use_model(dispatcher, kb, url, "good-model")
        extract(dispatcher, services, kb)
        serving[0] = lambda chunk: (
            ['{"choices": ["x"]}'] if "财务部" in chunk else content(BILLING_ONLY)
        )
        use_model(dispatcher, kb, url, "half-model")
        task = extract(dispatcher, services, kb)
    # the run completed, and says which answers it could not use
    assert task["state"] == "completed", task
    assert task["errorCode"] == "graph.answers_some_rejected"
    assert task["errorParams"]["reason"] == "the answer came as an invalid stream"
    assert task["summary"]["graph"]["rejectedAnswers"] == {"graph.answer_stream": 1}
    entities, relations, _evidence = graph(services)
    # the travel chunk kept its extraction; the systems chunk's answer replaced its own
    assert {("差旅报销制度", "policy"), ("财务部", "organization")} <= entities
    assert ("Billing System", "system") in entities and relations == {"approves"}
    assert not any(name == "Identity Platform" for name, _type in entities)
    docs = {
        d["path"]: d for d in call(dispatcher, DOCUMENTS_LIST.name, {"libraryId": kb})["documents"]
    }
    assert docs["travel.md"]["status"]["graph"] == "failed"
    assert docs["travel.md"]["graphErrorParams"]["reason"] == "the answer came as an invalid stream"
    assert docs["systems.md"]["status"]["graph"] == "done"


def nothing(_chunk: str) -> list[str]:
    return content('{"entities": [], "relations": []}')


@pytest.mark.parametrize(
    ("answer", "code"),
    [(nothing, "graph.run_empty"), (lambda _c: None, "graph.model_failed")],
    ids=["every answer empty", "provider down"],
)
def test_an_empty_or_failed_run_after_a_good_run_keeps_the_graph(
    dispatcher: Dispatcher, services: Services, kb: str, answer: Answer, code: str
) -> None:
    serving: list[Answer] = [good]
    with raw_server(serving) as url:
        use_model(dispatcher, kb, url, "good-model")
        extract(dispatcher, services, kb)
        before = graph(services)
        serving[0] = answer
        use_model(dispatcher, kb, url, "lazy-model")
        task = extract(dispatcher, services, kb)
    assert task["state"] == "failed" and task["errorCode"] == code, task
    assert graph(services) == before
    docs = call(dispatcher, DOCUMENTS_LIST.name, {"libraryId": kb})["documents"]
    assert {d["graphErrorCode"] for d in docs} == {code}
    assert call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["estimatedModelCalls"] >= 2


def test_a_model_that_finds_nothing_in_a_new_graph_completes(
    dispatcher: Dispatcher, services: Services, kb: str
) -> None:
    with raw_server([nothing]) as url:
        use_model(dispatcher, kb, url, "lazy-model")
        task = extract(dispatcher, services, kb)
    assert task["state"] == "completed" and task["error"] is None, task
    assert task["summary"]["graph"]["chunks"] >= 2
    assert call(dispatcher, GRAPH_GET.name, {"libraryId": kb})["estimatedModelCalls"] == 0
