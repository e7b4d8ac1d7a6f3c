"""`models:*:test` through the dispatcher against loopback servers: exactly the given connection
and key, the stored key when none is given, nothing saved, readable redacted failures."""

from __future__ import annotations

import json
from typing import Any

import pytest

from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_GET,
    CHAT_MODEL_TEST,
    CHAT_MODEL_UPDATE,
    EMBEDDING_TEST,
    METHODS,
    RERANK_TEST,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from tests.dispatch import call
from tests.servers.httpserver import Reply, serve


def test_connection_tests_never_run_on_the_writer_thread() -> None:
    for spec in (EMBEDDING_TEST, CHAT_MODEL_TEST, RERANK_TEST):
        assert METHODS[spec.name].mutates is False


@pytest.mark.integration
def test_ollama_chat_test_names_the_model_that_answered_and_saves_nothing(
    dispatcher: Dispatcher,
) -> None:
    seen: list[dict[str, Any]] = []

    def chat(_path: str, body: bytes) -> Reply:
        seen.append(json.loads(body))
        lines = [
            {"model": "qwen2.5:7b", "message": {"content": "OK"}, "done": False},
            {"model": "qwen2.5:7b", "message": {"content": ""}, "done": True},
        ]
        return Reply(200, "\n".join(json.dumps(x) for x in lines).encode(), "application/x-ndjson")

    with serve({"/api/chat": chat}) as base:
        connection = {"kind": "ollama", "baseUrl": base, "model": "qwen2.5"}
        result = call(dispatcher, CHAT_MODEL_TEST.name, {"connection": connection})
        assert result["ok"] and result["model"] == "qwen2.5:7b" and result["reply"] == "OK"
        assert seen[0]["options"] == {"num_predict": 16} and seen[0]["stream"] is True
        # Nothing was saved by the test.
        assert call(dispatcher, CHAT_MODEL_GET.name, {})["connection"]["kind"] == "none"
        call(dispatcher, CHAT_MODEL_UPDATE.name, {"connection": connection, "apiKey": "stored-1"})
        assert call(dispatcher, CHAT_MODEL_TEST.name, {})["ok"], "omitted: the saved connection"


@pytest.mark.integration
def test_a_server_that_is_not_a_chat_model_fails_the_test(dispatcher: Dispatcher) -> None:
    with serve({"/v1/chat/completions": Reply(200, b"<html>hello</html>")}) as base:
        result = call(
            dispatcher,
            CHAT_MODEL_TEST.name,
            {"connection": {"kind": "openai-compatible", "baseUrl": base, "model": "m"}},
        )
    assert not result["ok"] and "not as a chat model" in result["error"]


@pytest.mark.integration
def test_rerank_test_reports_an_invalid_answer_and_redacts_the_key(
    dispatcher: Dispatcher,
) -> None:
    with serve({"/v1/rerank": Reply(200, b'{"results": []}', "application/json")}) as base:
        result = call(
            dispatcher,
            RERANK_TEST.name,
            {"connection": {"baseUrl": base, "model": "rr"}, "apiKey": "typed-secret-77"},
        )
    assert not result["ok"] and "did not score every candidate" in result["error"]
    missing = call(dispatcher, RERANK_TEST.name, {})
    assert (
        not missing["ok"] and "the service address and the model are required" in missing["error"]
    )


def test_embedding_test_of_semantic_search_off_says_so(dispatcher: Dispatcher) -> None:
    result = call(dispatcher, EMBEDDING_TEST.name, {"connection": {"kind": "none"}})
    assert not result["ok"] and "semantic search is off" in result["error"]
    stored = call(dispatcher, EMBEDDING_TEST.name, {})
    assert stored["ok"] and stored["dimensions"] == 384, "omitted: the saved (hashing) model"


@pytest.mark.integration
def test_a_failed_test_says_what_the_service_said(dispatcher: Dispatcher) -> None:
    """ "HTTP 404 — check the base URL and the model name" left a person to guess which: the
    service's own words name the missing model. The typed key never echoes back."""
    ollama = json.dumps({"error": 'model "bge-m3" not found, try pulling it first'}).encode()
    openai = json.dumps(
        {"error": {"message": "The model `gpt-x` does not exist.", "type": "invalid_request"}}
    ).encode()
    rerank = json.dumps({"detail": "unknown model rr-missing for key typed-secret-77"}).encode()
    routes = {
        "/api/embed": Reply(404, ollama, "application/json"),
        "/v1/chat/completions": Reply(404, openai, "application/json"),
        "/v1/rerank": Reply(400, rerank, "application/json"),
        "/v1/embeddings": Reply(500, b"<html><body>Internal error</body></html>", "text/html"),
    }
    with serve(routes) as base:
        embed = call(
            dispatcher,
            EMBEDDING_TEST.name,
            {"connection": {"kind": "ollama", "baseUrl": base, "model": "bge-m3"}},
        )
        chat = call(
            dispatcher,
            CHAT_MODEL_TEST.name,
            {"connection": {"kind": "openai-compatible", "baseUrl": base + "/v1", "model": "x"}},
        )
        scored = call(
            dispatcher,
            RERANK_TEST.name,
            {"connection": {"baseUrl": base, "model": "rr"}, "apiKey": "typed-secret-77"},
        )
        page = call(
            dispatcher,
            EMBEDDING_TEST.name,
            {"connection": {"kind": "openai-compatible", "baseUrl": base + "/v1", "model": "e"}},
        )
    assert embed["error"] == (
        "the embedding service answered HTTP 404 — check the base URL and the model name;"
        ' the service says: model "bge-m3" not found, try pulling it first'
    )
    assert embed["errorCode"] == "test.service_says"
    assert embed["errorParams"]["says"] == 'model "bge-m3" not found, try pulling it first'
    assert "the service says: The model `gpt-x` does not exist." in chat["error"]
    assert (
        "unknown model rr-missing" in scored["error"] and "typed-secret-77" not in scored["error"]
    )
    # an HTML error page says nothing a person should read
    assert page["error"] == "the embedding service answered HTTP 500"
