"""What the tools promise an external model, through the SDK's own stdio client and a real
server: closed input schemas (an unknown key is refused, not ignored), descriptions that say
what the libraries are and when to call each tool without claiming a rerank that may be off,
and a clear warning for a `--library` that names no available library."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, SETTINGS_UPDATE

pytestmark = pytest.mark.integration
Scenario = Callable[[ClientSession, Any], Coroutine[Any, Any, None]]


def run_session(data_dir: Path, scenario: Scenario, *extra: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "goodbuddy_kb", "mcp", "--data-dir", str(data_dir), *extra],
        env=dict(os.environ),
    )

    async def main() -> None:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            await scenario(session, initialized)

    asyncio.run(main())


def exposed_library(client: BlockingClient, name: str) -> str:
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id
    client.call(
        SETTINGS_UPDATE, lib.SettingsUpdateRequest(library_id=library_id, external_access=True)
    )
    return library_id


def text_of(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def test_input_schemas_are_closed_and_unknown_keys_refused(
    data_dir: Path, client: BlockingClient
) -> None:
    exposed_library(client, "Manuals")

    async def scenario(session: ClientSession, _init: Any) -> None:
        for tool in (await session.list_tools()).tools:
            assert tool.input_schema["additionalProperties"] is False, tool.name
        # `library` for `libraries`: it used to be ignored, and every library was searched.
        mistyped = await session.call_tool(
            "knowledge_search", {"query": "zanzibar", "library": "Manuals"}
        )
        assert mistyped.is_error
        assert "library: unknown argument" in text_of(mistyped)
        assert "libraries" in text_of(mistyped), "the message names the right key"
        extra = await session.call_tool("list_libraries", {"verbose": True})
        assert extra.is_error and "verbose: unknown argument" in text_of(extra)
        good = await session.call_tool(
            "knowledge_search", {"query": "zanzibar", "libraries": ["Manuals"]}
        )
        assert not good.is_error, text_of(good)

    run_session(data_dir, scenario)


def test_descriptions_say_whose_documents_and_when_without_claiming_rerank(
    data_dir: Path, client: BlockingClient
) -> None:
    exposed_library(client, "Manuals")

    async def scenario(session: ClientSession, init: Any) -> None:
        assert "user's own" in init.instructions
        tools = {t.name: t.description or "" for t in (await session.list_tools()).tools}
        for name, description in tools.items():
            assert "user's own" in description, name
            assert "Call it" in description or "Use it" in description, name
        search = tools["knowledge_search"]
        assert "reranked" not in search, "rerank is off unless the user switched it on"
        assert "diagnostics.rerank" in search
        found = await session.call_tool("knowledge_search", {"query": "anything"})
        assert found.structured_content is not None
        assert found.structured_content["diagnostics"]["rerank"] == "off"
        assert "Rerank: off." in text_of(found)

    run_session(data_dir, scenario)


def test_a_library_flag_that_names_nothing_is_said_clearly(
    data_dir: Path, client: BlockingClient
) -> None:
    exposed_library(client, "Manuals")
    exposed_library(client, "Travel policies")

    async def partial_only(session: ClientSession, _init: Any) -> None:
        listed = await session.call_tool("list_libraries", {})
        assert not listed.is_error
        assert listed.structured_content is not None
        assert listed.structured_content["libraries"] == []
        (warning,) = listed.structured_content["warnings"]
        assert "“Manu”" in warning and "full name" in warning
        assert "“Manu”" in text_of(listed)
        searched = await session.call_tool("knowledge_search", {"query": "anything"})
        assert searched.is_error
        assert "“Manu”" in text_of(searched) and "full name" in text_of(searched)

    run_session(data_dir, partial_only, "--library", "Manu")

    async def one_good_one_unknown(session: ClientSession, _init: Any) -> None:
        listed = await session.call_tool("list_libraries", {})
        assert listed.structured_content is not None
        names = [x["name"] for x in listed.structured_content["libraries"]]
        assert names == ["Travel policies"]
        (warning,) = listed.structured_content["warnings"]
        assert "“Nonexistent”" in warning and "travel" not in warning.lower()
        found = await session.call_tool("knowledge_search", {"query": "anything"})
        assert not found.is_error, "the libraries the scope does name are searched"

    run_session(
        data_dir, one_good_one_unknown, "--library", "travel POLICIES", "--library", "Nonexistent"
    )
