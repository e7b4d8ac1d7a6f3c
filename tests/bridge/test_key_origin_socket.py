"""A stored API key goes only to the address it was saved for (a helper's try: with only the base
URL changed, Test sent the stored embedding key to whatever listened at the new address). Through
the real socket, against two real loopback services: the embedding, chat and rerank keys, their
connection tests, the model list and saving without retyping the key."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chat as c
from goodbuddy_kb.contracts import models as m
from goodbuddy_kb.contracts.errors import ConflictError
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_TEST,
    CHAT_MODEL_UPDATE,
    EMBEDDING_GET,
    EMBEDDING_TEST,
    EMBEDDING_UPDATE,
    MODELS_LIST,
    RERANK_TEST,
    RERANK_UPDATE,
)
from goodbuddy_kb.main_process.credentials import CredentialStore
from goodbuddy_kb.main_process.storage.setting_keys import EMBEDDING_API_KEY

pytestmark = pytest.mark.integration

KEY = "sk-test-SECRET-4242"


@contextmanager
def service() -> Iterator[tuple[str, list[str | None]]]:
    """An OpenAI-compatible service on 127.0.0.1 that records every Authorization header it is
    sent; it embeds anything (64 dimensions) and lists one model."""
    seen: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, payload: object) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            seen.append(self.headers.get("Authorization"))
            self._reply(200, {"data": [{"id": "emb-1"}]})

        def do_POST(self) -> None:
            seen.append(self.headers.get("Authorization"))
            request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            if self.path.endswith("/embeddings"):
                texts = request["input"]
                vectors = [
                    [1.0 if i == n % 64 else 0.0 for i in range(64)] for n in range(len(texts))
                ]
                self._reply(
                    200, {"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}
                )
            else:
                self._reply(401, {"error": {"message": "invalid key"}})

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def embedding(url: str) -> m.EmbeddingConnection:
    return m.EmbeddingConnection(kind="openai-compatible", base_url=url, model="emb-1")


def origin_of(url: str) -> str:
    return url.removesuffix("/v1")


def test_a_stored_key_is_not_sent_to_another_address(live: BlockingClient) -> None:
    with service() as (first, first_seen), service() as (other, other_seen):
        live.call(
            EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=embedding(first), api_key=KEY)
        )
        info = live.call(EMBEDDING_GET, m.EmbeddingGetRequest())
        assert info.has_api_key and info.key_origin == origin_of(first)

        # the same service (another spelling of its address): the stored key goes with the test
        same = live.call(EMBEDDING_TEST, m.EmbeddingTestRequest(connection=embedding(first + "/")))
        assert same.ok, same.error
        assert first_seen[-1] == f"Bearer {KEY}"

        # another port: the test, the model list and a save keeping the key all refuse it
        moved = live.call(EMBEDDING_TEST, m.EmbeddingTestRequest(connection=embedding(other)))
        assert not moved.ok and moved.error_code == "key.elsewhere"
        assert moved.error_params == {"origin": origin_of(first), "target": origin_of(other)}
        assert KEY not in (moved.error or "")
        listed = live.call(
            MODELS_LIST,
            m.ModelListRequest(purpose="embedding", kind="openai-compatible", base_url=other),
        )
        assert not listed.ok and listed.error_code == "key.elsewhere"
        with pytest.raises(ConflictError) as refused:
            live.call(EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=embedding(other)))
        assert refused.value.message_code == "key.elsewhere"
        assert other_seen == [], "the other address was sent something"
        saved = live.call(EMBEDDING_GET, m.EmbeddingGetRequest())
        assert saved.connection.base_url == first and saved.key_origin == origin_of(first)

        # typed again, it goes there and belongs there from now on
        retyped = live.call(
            EMBEDDING_TEST, m.EmbeddingTestRequest(connection=embedding(other), api_key=KEY)
        )
        assert retyped.ok and other_seen[-1] == f"Bearer {KEY}"
        live.call(
            EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=embedding(other), api_key=KEY)
        )
        assert live.call(EMBEDDING_GET, m.EmbeddingGetRequest()).key_origin == origin_of(other)
        back = live.call(EMBEDDING_TEST, m.EmbeddingTestRequest(connection=embedding(first)))
        assert not back.ok and back.error_code == "key.elsewhere"

        # the chat model's and the rerank service's keys likewise
        chat = c.ChatConnection(kind="openai-compatible", base_url=first, model="chat-1")
        live.call(CHAT_MODEL_UPDATE, c.ChatUpdateRequest(connection=chat, api_key=KEY))
        elsewhere = chat.model_copy(update={"base_url": other})
        asked = len(other_seen)
        tried = live.call(CHAT_MODEL_TEST, c.ChatTestRequest(connection=elsewhere))
        assert not tried.ok and tried.error_code == "key.elsewhere"
        with pytest.raises(ConflictError):
            live.call(CHAT_MODEL_UPDATE, c.ChatUpdateRequest(connection=elsewhere))
        rerank = m.RerankConnection(base_url=first, model="rerank-1")
        live.call(RERANK_UPDATE, m.RerankUpdateRequest(connection=rerank, api_key=KEY))
        probed = live.call(
            RERANK_TEST,
            m.RerankTestRequest(connection=rerank.model_copy(update={"base_url": other})),
        )
        assert not probed.ok and probed.error_code == "key.elsewhere"
        assert len(other_seen) == asked, "the other address was sent something"
        # cleared, nothing is stored and nothing is refused
        cleared = live.call(
            CHAT_MODEL_UPDATE, c.ChatUpdateRequest(connection=elsewhere, api_key="")
        )
        assert not cleared.has_api_key and cleared.key_origin is None


def test_a_key_stored_before_the_binding_belongs_to_the_saved_address(
    data_dir: Path, live: BlockingClient
) -> None:
    with service() as (first, first_seen), service() as (other, other_seen):
        live.call(
            EMBEDDING_UPDATE, m.EmbeddingUpdateRequest(connection=embedding(first), api_key=KEY)
        )
        # as an older version stored it: the key alone (the backend reads the store on each use)
        CredentialStore(data_dir).set(EMBEDDING_API_KEY + ".origin", None)
        assert live.call(EMBEDDING_GET, m.EmbeddingGetRequest()).key_origin == origin_of(first)
        assert live.call(EMBEDDING_TEST, m.EmbeddingTestRequest(connection=embedding(first))).ok
        moved = live.call(EMBEDDING_TEST, m.EmbeddingTestRequest(connection=embedding(other)))
        assert not moved.ok and moved.error_code == "key.elsewhere"
        assert other_seen == [] and first_seen[-1] == f"Bearer {KEY}"
