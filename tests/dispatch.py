"""Calling the transport-free dispatcher from tests: the result of a call, its error data, or a
retrieval in one library."""

from __future__ import annotations

from typing import Any

from goodbuddy_kb.contracts.methods import RETRIEVE
from goodbuddy_kb.contracts.wire import request_message
from goodbuddy_kb.main_process.dispatcher import Dispatcher


def call(d: Dispatcher, name: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = d.dispatch(request_message(1, name, params)).reply
    assert "result" in reply, reply
    return dict(reply["result"])


def fail(d: Dispatcher, name: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = d.dispatch(request_message(1, name, params)).reply
    assert "error" in reply, reply
    return dict(reply["error"]["data"])


def ask(d: Dispatcher, library_id: str, query: str, **extra: Any) -> dict[str, Any]:
    return call(d, RETRIEVE.name, {"libraryIds": [library_id], "query": query, **extra})
