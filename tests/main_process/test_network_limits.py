"""Misbehaving servers on 127.0.0.1 (issue 19, items 5–8): trickled headers and replies,
stacked compression, non-finite scores and vectors, probes on the writer thread, credentials in
URLs. Each server is real; each misbehaviour is the one seen in the field."""

from __future__ import annotations

import gzip
import json
import logging
import socket
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from goodbuddy_kb.contracts.errors import TimeoutError_, UnavailableError, redact
from goodbuddy_kb.contracts.methods import EMBEDDING_UPDATE, LIBRARY_CREATE, RERANK_UPDATE
from goodbuddy_kb.main_process import netio
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.embeddings.remote import OpenAICompatibleProvider
from goodbuddy_kb.main_process.parsing import ParseError
from goodbuddy_kb.main_process.retrieval import learned
from goodbuddy_kb.main_process.sync import web
from tests.dispatch import call
from tests.servers.httpserver import Reply, serve, serve_raw, trickle

HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"


def gzip_reply(body: bytes, encoding: str) -> Any:
    def send(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
            + f"Content-Encoding: {encoding}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )

    return send


# -- item 5: headers one byte at a time --------------------------------------------------------
@pytest.mark.integration
def test_trickled_headers_end_at_the_total_deadline() -> None:
    with serve_raw(trickle(HEAD, 0.2)) as base:
        started = time.monotonic()
        with pytest.raises(ParseError, match="did not answer within 1 s"):
            web.fetch(f"{base}/page", timeout=1.0)
        assert time.monotonic() - started < 4.0  # before the fix: the whole trickle (~14 s)


@pytest.mark.integration
def test_cancel_ends_a_fetch_stuck_in_trickled_headers_at_once() -> None:
    token = CancelToken()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            web.fetch(f"{base}/page", timeout=60.0, cancel=token)
        except BaseException as exc:
            outcome.append(exc)

    with serve_raw(trickle(HEAD, 0.5)) as base:
        thread = threading.Thread(target=run)
        thread.start()
        time.sleep(0.7)
        cancelled_at = time.monotonic()
        token.cancel()
        thread.join(5)
        assert not thread.is_alive() and time.monotonic() - cancelled_at < 2.0
    assert outcome and outcome[0].__class__.__name__ == "CancelledError"


# -- item 6: stacked and oversized compression ------------------------------------------------
@pytest.mark.integration
def test_stacked_content_encodings_are_refused_without_expanding() -> None:
    bomb = gzip.compress(gzip.compress(b"\0" * (200 * 1024 * 1024)))
    assert len(bomb) < 1_000
    tracemalloc.start()
    with (
        serve_raw(gzip_reply(bomb, "gzip, gzip")) as base,
        pytest.raises(ParseError, match="more than one content encoding"),
    ):
        web.fetch(f"{base}/page", timeout=5.0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 32 * 1024 * 1024


@pytest.mark.integration
def test_a_gzip_bomb_stops_at_the_page_limit_in_bounded_memory() -> None:
    bomb = gzip.compress(b"a" * (300 * 1024 * 1024), compresslevel=9)
    tracemalloc.start()
    with (
        serve_raw(gzip_reply(bomb, "gzip")) as base,
        pytest.raises(ParseError, match="larger than 10 MB"),
    ):
        web.fetch(f"{base}/page", timeout=10.0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 64 * 1024 * 1024, peak


@pytest.mark.integration
def test_a_normal_gzip_page_still_arrives() -> None:
    body = gzip.compress("<html><body><p>压缩的页面 compressed page</p></body></html>".encode())
    with serve_raw(gzip_reply(body, "gzip")) as base:
        data, _media = web.fetch(f"{base}/page", timeout=5.0)
    assert "compressed page" in data.decode()


# -- item 7: the embedding timeout is total ----------------------------------------------------
@pytest.mark.integration
def test_a_trickling_embedding_service_ends_at_the_total_timeout() -> None:
    reply = json.dumps({"data": [{"index": 0, "embedding": [0.1] * 8}]}).encode()
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(reply)}\r\n\r\n"
    )
    with serve_raw(trickle(head.encode() + reply, 0.1)) as base:
        provider = OpenAICompatibleProvider(base, "m", None, 8, 4, 1.0)
        started = time.monotonic()
        with pytest.raises(TimeoutError_):
            provider.embed_query("hello")
        assert time.monotonic() - started < 4.0  # before the fix: the whole trickle (~15 s)
        provider.close()


@pytest.mark.integration
def test_embedding_update_does_not_probe_on_the_writer_thread(
    dispatcher: Dispatcher, services: Any
) -> None:
    call(dispatcher, LIBRARY_CREATE.name, {"name": "Probe"})
    stalled = Reply(200, b"{}", "application/json", delay_s=3.0)
    with serve({"/v1/embeddings": stalled}) as base:
        started = time.monotonic()
        call(
            dispatcher,
            EMBEDDING_UPDATE.name,
            {"connection": {"kind": "openai-compatible", "baseUrl": base, "model": "m"}},
        )
        assert time.monotonic() - started < 2.5  # a probe would wait for the 3 s stall


@pytest.mark.integration
@pytest.mark.parametrize(
    ("vectors", "reason"),
    [
        ([[0.0] * 8], "all-zero or constant"),
        ([[0.25] * 8], "all-zero or constant"),
        ([[1e39] + [0.1] * 7], "non-finite or absurd"),
    ],
)
def test_empty_or_non_finite_vectors_are_a_provider_error(
    vectors: list[list[float]], reason: str
) -> None:
    reply = json.dumps({"data": [{"index": 0, "embedding": v} for v in vectors]}).encode()
    with serve({"/v1/embeddings": Reply(200, reply, "application/json")}) as base:
        provider = OpenAICompatibleProvider(base, "m", None, 8, 4, 5.0)
        with pytest.raises(UnavailableError, match=reason):
            provider.embed_passages(["x"])
        provider.close()
    good = json.dumps({"data": [{"index": 0, "embedding": list(np.linspace(0, 1, 8))}]})
    with serve({"/v1/embeddings": Reply(200, good.encode(), "application/json")}) as base:
        provider = OpenAICompatibleProvider(base, "m", None, 8, 4, 5.0)
        assert provider.embed_passages(["x"]).shape == (1, 8)
        provider.close()


# -- item 8: non-finite and absurd rerank scores ----------------------------------------------
@pytest.mark.integration
@pytest.mark.parametrize("score", ["1e999", "-1e999", "NaN", "1e300"])
def test_non_finite_or_absurd_rerank_scores_are_a_service_failure(score: str) -> None:
    body = f'{{"results": [{{"index": 0, "relevance_score": {score}}}]}}'.encode()
    with (
        serve({"/v1/rerank": Reply(200, body, "application/json")}) as base,
        pytest.raises(learned.RerankFailed),
    ):
        learned.rerank(base, "rr", None, "q", ["doc"], 5.0, CancelToken())


@pytest.mark.integration
def test_an_infinite_rerank_score_falls_back_to_local_in_retrieval(
    dispatcher: Dispatcher, services: Any, tmp_path: Path
) -> None:
    from tests.dispatch import ask

    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "a.md").write_text("# 报销\n\n报销流程需要主管审批。\n", encoding="utf-8")
    (folder / "b.md").write_text("# 差旅\n\n报销差旅费用要附发票。\n", encoding="utf-8")
    library_id = call(dispatcher, LIBRARY_CREATE.name, {"name": "KB"})["library"]["id"]
    call(
        dispatcher,
        "knowledge:source:add",
        {"libraryId": library_id, "kind": "folder", "location": str(folder), "watch": False},
    )
    services.tasks.wait_idle()

    def scores(_path: str, body: bytes) -> Reply:
        docs = json.loads(body)["documents"]
        items = ",".join(f'{{"index": {i}, "relevance_score": 1e999}}' for i in range(len(docs)))
        return Reply(200, f'{{"results": [{items}]}}'.encode(), "application/json")

    with serve({"/v1/rerank": scores}) as base:
        call(dispatcher, RERANK_UPDATE.name, {"connection": {"baseUrl": base, "model": "rr"}})
        res = ask(dispatcher, library_id, "报销流程", rerank="learned")
    assert res["diagnostics"]["rerank"]["applied"] == "local"
    assert "not finite" in res["diagnostics"]["rerank"]["fallbackReason"]
    assert res["results"]


# -- credentials in URLs -------------------------------------------------------------------------
def test_url_userinfo_is_redacted_in_messages_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    url = "https://alice:hunter2-secret@example.invalid/page?x=1"
    assert "hunter2" not in redact(f"cannot fetch {url}")
    assert netio.redact_url(url) == "https://example.invalid/page?x=1"
    handler = logging.StreamHandler()
    logging.getLogger().addHandler(handler)
    try:
        netio.install_log_redaction()
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "GET %s", (url,), None)
        for f in handler.filters:
            f.filter(record)
        assert "hunter2" not in record.getMessage() and "example.invalid" in record.getMessage()
        assert logging.getLogger("httpx").getEffectiveLevel() >= logging.WARNING
    finally:
        logging.getLogger().removeHandler(handler)


@pytest.mark.integration
def test_a_trickling_chat_model_ends_at_the_total_deadline() -> None:
    from goodbuddy_kb.main_process.chat.clients import ChatClient, Turn

    with serve_raw(trickle(HEAD, 0.2)) as base:
        chat = ChatClient("openai-compatible", base, "m", None, 1.0)
        started = time.monotonic()
        with pytest.raises(TimeoutError_):
            chat.turn(
                [{"role": "user", "content": "hi"}], [], lambda _t: None, CancelToken(), Turn()
            )
        assert time.monotonic() - started < 4.5


@pytest.mark.integration
def test_a_trickling_rerank_service_falls_back_at_the_total_deadline() -> None:
    with serve_raw(trickle(HEAD, 0.2)) as base:
        started = time.monotonic()
        with pytest.raises(learned.RerankFailed, match="did not answer within 1 s"):
            learned.rerank(base, "rr", None, "q", ["doc"], 1.0, CancelToken())
        assert time.monotonic() - started < 4.0


@pytest.mark.integration
def test_sigterm_ends_a_backend_stuck_in_a_trickling_fetch(data_dir: Path) -> None:
    """Before: the fetch held the process 146 s after SIGTERM, its lock already released."""
    import os
    import signal
    import sys

    from goodbuddy_kb.bridge.client import BlockingClient
    from goodbuddy_kb.bridge.launcher import BackendProcess
    from goodbuddy_kb.contracts import library as c
    from goodbuddy_kb.contracts import sources as s
    from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, SOURCE_ADD

    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    with serve_raw(trickle(HEAD * 100, 1.0)) as base:
        backend = BackendProcess.start(data_dir)
        try:
            with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as cl:
                lib = cl.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="W")).library
                cl.call(
                    SOURCE_ADD,
                    s.SourceAddRequest(library_id=lib.id, kind="web", location=f"{base}/p"),
                )
                time.sleep(2.0)  # the sync is now inside the trickling fetch
            os.kill(backend.pid, signal.SIGTERM)
            started = time.monotonic()
            backend.popen.wait(timeout=15)
            assert time.monotonic() - started < 8.0
        finally:
            backend.stop()
