"""The chat runtime shares the stream decoder with graph extraction: a hostile OpenAI-compatible
stream (``choices[0]`` a string, ``delta`` a list, string ``tool_calls``, 100,000-deep JSON)
ends the reply as "failed" with the coded reason "the chat model sent an invalid stream", never
as an internal error; 100,000-deep tool-call arguments are refused to the model like any other
arguments that are not a JSON object. Through the real backend, against a loopback server that
sends each stream as raw SSE lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    CHAT_SEND,
    CONVERSATION_CREATE,
    LIBRARY_CREATE,
)
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from tests.dispatch import call
from tests.servers.sse import sse_server

DEEP = 100_000


@contextmanager
def raw_server(turns: list[list[str]]) -> Iterator[str]:
    """Streams ``turns[n]`` (raw ``data:`` payloads) for the n-th request, then ``[DONE]``."""
    served = [0]

    def payloads(_body: dict[str, Any]) -> list[str]:
        turn = turns[min(served[0], len(turns) - 1)]
        served[0] += 1
        return turn

    with sse_server(payloads) as url:
        yield url


def ask(d: Dispatcher, url: str) -> dict[str, Any]:
    call(
        d,
        CHAT_MODEL_UPDATE.name,
        {"connection": {"kind": "openai-compatible", "baseUrl": url, "model": "chat-small"}},
    )
    library_id = call(d, LIBRARY_CREATE.name, {"name": "Empty"})["library"]["id"]
    conversation = call(d, CONVERSATION_CREATE.name, {"title": "t"})["id"]
    request = {
        "conversationId": conversation,
        "text": "出差住宿标准？",
        "libraryIds": [library_id],
        "mode": "auto",
    }
    return dict(call(d, CHAT_SEND.name, request)["assistantMessage"])


def text(reply: str) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": {"content": reply}}]})


HOSTILE = {
    "choice is a string": '{"choices": ["x"]}',
    "choices is a string": '{"choices": "abc"}',
    "delta is a list": '{"choices": [{"delta": [1]}]}',
    "tool_calls is a string": '{"choices": [{"delta": {"tool_calls": "call"}}]}',
    "tool call name is a list": (
        '{"choices": [{"delta": {"tool_calls": [{"function": {"name": ["x"]}}]}}]}'
    ),
    "deep event": "[" * DEEP + "]" * DEEP,
}


@pytest.mark.parametrize("event", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_stream_fails_the_reply_with_a_reason(dispatcher: Dispatcher, event: str) -> None:
    with raw_server([[text("部分回答"), event]]) as url:
        reply = ask(dispatcher, url)
    assert reply["state"] == "failed", reply
    assert reply["errorCode"] == "chat.invalid_stream"
    assert reply["content"] == "部分回答"  # what arrived before the bad event is kept


def test_deep_tool_call_arguments_are_refused_to_the_model(dispatcher: Dispatcher) -> None:
    call_event = {
        "choices": [
            {
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "function": {
                                "name": "knowledge_search",
                                "arguments": "[" * DEEP + "]" * DEEP,
                            },
                        }
                    ]
                }
            }
        ]
    }
    with raw_server([[json.dumps(call_event)], [text("没有找到。")]]) as url:
        reply = ask(dispatcher, url)
    assert reply["state"] == "complete", reply
    assert reply["content"] == "没有找到。"
