"""What a third-party MCP client can get wrong, through a real `goodbuddy-kb mcp` process: a
tool call before `initialize`, a message line over the size limit, and a `--data-dir` that holds
no GoodBuddy KB data. Each is refused clearly, nothing is created or miscounted, and the server
keeps serving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts.limits import MAX_FRAME_BYTES
from goodbuddy_kb.datadir import DATABASE_FILE
from tests.mcp_server.raw import INITIALIZE, INITIALIZED, calls_summary, raw_server

pytestmark = pytest.mark.integration


def text_of(reply: dict[str, object]) -> str:
    result = reply["result"]
    assert isinstance(result, dict)
    return "\n".join(block.get("text", "") for block in result["content"])


def test_a_tool_call_before_initialize_is_refused_and_not_recorded(
    data_dir: Path, client: BlockingClient
) -> None:
    with raw_server(data_dir) as server:
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "list_libraries", "arguments": {}},
            }
        )
        early = server.answer(7)
        assert "result" not in early
        assert "initialize" in early["error"]["message"]
        server.send(INITIALIZE)
        assert "result" in server.answer(1)
        server.send(INITIALIZED)
        assert server.call_tool(8, "list_libraries", {})["result"]["isError"] is False
        server.close_stdin()
        assert server.wait() == 0
    summary = calls_summary(client)
    assert (summary.total_calls, summary.total_errors) == (1, 0), "only the real call counts"


def oversized(msg_id: int | None) -> bytes:
    head = {"jsonrpc": "2.0", "method": "tools/call"} | ({} if msg_id is None else {"id": msg_id})
    params = {"name": "knowledge_search", "arguments": {"query": "x" * (MAX_FRAME_BYTES + 1)}}
    return (json.dumps({**head, "params": params}) + "\n").encode()


def test_a_message_over_the_size_limit_is_refused_alone(
    data_dir: Path, client: BlockingClient
) -> None:
    with raw_server(data_dir) as server:
        server.handshake()
        server.send(oversized(9))
        refused = server.answer(9)
        assert refused["error"]["code"] == -32600
        assert "too large" in refused["error"]["message"]
        # Without an id near its start, the error goes to no request in particular.
        server.send(oversized(None))
        assert "too large" in server.answer(None)["error"]["message"]
        listed = server.call_tool(10, "list_libraries", {})
        assert listed["result"]["isError"] is False, "the server keeps serving"
        server.close_stdin()
        assert server.wait() == 0
    assert calls_summary(client).total_calls == 1, "a refused message is no tool call"


@pytest.mark.parametrize("kind", ["missing", "empty"])
def test_a_data_dir_without_goodbuddy_data_is_never_created(tmp_path: Path, kind: str) -> None:
    typo = tmp_path / "GoodBudy KB"  # mistyped in a client's configuration
    if kind == "empty":
        typo.mkdir()
    with raw_server(typo) as server:
        server.handshake()
        for msg_id, tool, arguments in (
            (10, "list_libraries", {}),
            (11, "knowledge_search", {"query": "travel policy"}),
        ):
            reply = server.call_tool(msg_id, tool, arguments)
            assert reply["result"]["isError"] is True
            message = text_of(reply)
            assert str(typo) in message and "--data-dir" in message, message
            assert "nothing was created" in message
            assert "switch" not in message.lower(), "not the 'switch libraries on' advice"
        server.close_stdin()
        assert server.wait() == 0
        assert "warning" in server.error_output() and str(typo) in server.error_output()
    if kind == "missing":
        assert not typo.exists()
    else:
        assert list(typo.iterdir()) == []
        assert not (typo / DATABASE_FILE).exists()
