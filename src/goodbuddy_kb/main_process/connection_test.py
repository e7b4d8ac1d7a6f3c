"""Connection tests behind the model connections form: one tiny real request to exactly the
connection the form holds, under a short overall deadline, answered with what was learned or a
redacted error with a hint. Nothing is saved and no serving client is replaced.

The chat test goes through the chat runtime's own client (same URL rules, headers and stream
parsing as a real reply); the rerank test through the learned-rerank call of the pipeline.
"""

from __future__ import annotations

import re
import threading
import time

from goodbuddy_kb.contracts.chat import ChatConnection, ChatTestResponse
from goodbuddy_kb.contracts.errors import KbError, redact
from goodbuddy_kb.contracts.limits import CONNECTION_TEST_TIMEOUT_SECONDS
from goodbuddy_kb.contracts.messages import Reason
from goodbuddy_kb.contracts.models import RerankConnection, RerankTestResponse
from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.chat.clients import ChatClient, Turn
from goodbuddy_kb.main_process.retrieval.learned import RerankFailed
from goodbuddy_kb.main_process.retrieval.learned import rerank as learned_rerank

CHAT_PROMPT = "This is a connection test. Reply with the single word OK."
#: Few tokens: the test proves endpoint, key and model name, not the model's eloquence.
CHAT_MAX_TOKENS = 16
RERANK_QUERY = "Where do giant pandas live?"
RERANK_DOCUMENTS = [
    "Giant pandas live in the mountain forests of central China.",
    "会议改到明天下午三点，地点不变。",
]

_HINTS = {
    "401": "check the API key",
    "403": "check the API key and its permissions",
    "404": "check the base URL and the model name",
}
#: Listing the models names none: a 404 there is the address, or a service without a list.
LIST_HINTS = {
    **_HINTS,
    "404": "check the base URL (not every service lists its models: type the model name)",
}


def explain(
    error: str, key: str | None, says: str | None = None, hints: dict[str, str] | None = None
) -> str:
    """A redacted error with a hint for the usual causes, then what the service said of it in
    its own words (``netio.service_says``: 'model "x" not found'); the typed key never echoes
    back."""
    status = re.search(r"HTTP (\d{3})", error)
    hint = (hints or _HINTS).get(status.group(1)) if status else None
    if hint is None and "cannot be reached" in error:
        # (not "nothing answers at this address": it repeated "cannot be reached (the
        # connection failed)" and said nothing to do)
        hint = "check the address and that the service is running"
    text = f"{error} — {hint}" if hint else error
    if says:
        text = Reason("test.service_says", error=text, says=says)
    if key:
        text = text.replace(key, "[redacted]")
    return redact(text, 400)


def probe_chat(connection: ChatConnection, key: str | None) -> ChatTestResponse:
    def failed(error: str, says: str | None = None) -> ChatTestResponse:
        return ChatTestResponse(
            ok=False, model=None, reply=None, latency_ms=None, error=explain(error, key, says)
        )

    if connection.kind == "none" or not (connection.base_url and connection.model):
        return failed("no chat model is configured: there is nothing to test")
    limit = min(connection.timeout_s, CONNECTION_TEST_TIMEOUT_SECONDS)
    client = ChatClient(connection.kind, connection.base_url, connection.model, key, limit)
    cancel = CancelToken()
    # The client's own timeouts bound each read; this bounds the whole test.
    deadline = threading.Timer(
        limit,
        cancel.cancel,
        kwargs={"reason": f"the chat model did not answer within {limit:.0f} s"},
    )
    deadline.daemon = True
    turn = Turn()
    started = time.perf_counter()
    deadline.start()
    try:
        client.turn(
            [{"role": "user", "content": CHAT_PROMPT}],
            [],
            lambda _text: None,
            cancel,
            turn,
            max_tokens=CHAT_MAX_TOKENS,
        )
    except KbError as exc:
        return failed(exc.message, exc.says)
    finally:
        deadline.cancel()
    if turn.events == 0:
        return failed("the address answered, but not as a chat model (no chat stream came back)")
    return ChatTestResponse(
        ok=True,
        model=turn.model or connection.model,
        reply=redact(turn.text.strip(), 200),
        latency_ms=(time.perf_counter() - started) * 1000,
        error=None,
    )


def probe_rerank(connection: RerankConnection, key: str | None) -> RerankTestResponse:
    def failed(error: str, says: str | None = None) -> RerankTestResponse:
        return RerankTestResponse(
            ok=False, scores=None, latency_ms=None, error=explain(error, key, says)
        )

    if not (connection.base_url and connection.model):
        return failed("the service address and the model are required for a rerank service")
    started = time.perf_counter()
    try:
        scores = learned_rerank(
            connection.base_url,
            connection.model,
            key,
            RERANK_QUERY,
            RERANK_DOCUMENTS,
            min(connection.timeout_s, CONNECTION_TEST_TIMEOUT_SECONDS),
            CancelToken(),
        )
    except RerankFailed as exc:
        return failed(exc.reason, exc.says)
    return RerankTestResponse(
        ok=True,
        scores=[round(s, 4) for s in scores],
        latency_ms=(time.perf_counter() - started) * 1000,
        error=None,
    )
