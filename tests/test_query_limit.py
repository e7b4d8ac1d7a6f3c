"""PRD §15.1: the query length limit is one constant, the same in the shared contract, the IPC
validation, the MCP tool schema and the CLI."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.cli.parser import build_parser
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.errors import InvalidRequestError
from goodbuddy_kb.contracts.external import ExternalSearchRequest
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import EXTERNAL_SEARCH, LIBRARY_CREATE, RETRIEVE
from goodbuddy_kb.contracts.retrieval import RetrieveRequest
from goodbuddy_kb.contracts.wire import encode_frame, request_message

LONGEST = "问" * MAX_QUERY_CHARACTERS
TOO_LONG = LONGEST + "问"
SOME_ID = "a" * 32


def test_the_contracts_accept_the_limit_and_refuse_one_more() -> None:
    RetrieveRequest(library_ids=[SOME_ID], query=LONGEST)
    ExternalSearchRequest(query=LONGEST)
    with pytest.raises(ValueError, match=str(MAX_QUERY_CHARACTERS)):
        RetrieveRequest(library_ids=[SOME_ID], query=TOO_LONG)
    with pytest.raises(ValueError, match=str(MAX_QUERY_CHARACTERS)):
        ExternalSearchRequest(query=TOO_LONG)


@pytest.mark.integration
def test_ipc_validation_uses_the_same_limit(client: BlockingClient) -> None:
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name="L")).library.id
    client.call(RETRIEVE, RetrieveRequest(library_ids=[library_id], query=LONGEST))
    for method in (RETRIEVE.name, EXTERNAL_SEARCH.name):
        # Sent raw: the client-side model would refuse it before it left.
        params = {"libraryIds": [library_id], "query": TOO_LONG}
        if method == EXTERNAL_SEARCH.name:
            params = {"query": TOO_LONG}
        client.send_raw(encode_frame(request_message(99, method, params)))
        reply = client.read_message()
        assert reply["error"]["data"]["code"] == InvalidRequestError.code.value
        assert str(MAX_QUERY_CHARACTERS) in reply["error"]["data"]["message"]


def test_the_mcp_tool_schema_uses_the_same_limit(tmp_path: Path) -> None:
    from goodbuddy_kb.mcp_server.arguments import check_arguments
    from goodbuddy_kb.mcp_server.link import BackendLink
    from goodbuddy_kb.mcp_server.tools import build_server

    link = BackendLink(tmp_path)  # never connects: only the schema is read
    server, _recorder = build_server(link, None)
    tools = {tool.name: tool for tool in asyncio.run(server.list_tools())}
    query = tools["knowledge_search"].input_schema["properties"]["query"]
    assert query["maxLength"] == MAX_QUERY_CHARACTERS
    assert check_arguments("knowledge_search", {"query": LONGEST}) is None
    problem = check_arguments("knowledge_search", {"query": TOO_LONG})
    assert problem is not None and str(MAX_QUERY_CHARACTERS) in problem
    link.close()


def test_the_cli_uses_the_same_limit(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["retrieve", "L", LONGEST])
    assert args.query == LONGEST
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["retrieve", "L", TOO_LONG])
    assert exit_info.value.code == 2
    assert f"at most {MAX_QUERY_CHARACTERS:,} characters" in capsys.readouterr().err
