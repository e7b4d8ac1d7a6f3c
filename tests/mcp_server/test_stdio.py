"""`goodbuddy-kb mcp` as an external AI tool runs it: the SDK's own stdio client and
`ClientSession` against a real server process attached to a real backend."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import library as lib
from goodbuddy_kb.contracts import sources as src
from goodbuddy_kb.contracts.evidence import CLOSE_TAG, OPEN_TAG
from goodbuddy_kb.contracts.external import ExternalCallsSummaryRequest, parse_citation_id
from goodbuddy_kb.contracts.limits import MAX_QUERY_CHARACTERS
from goodbuddy_kb.contracts.methods import (
    EXTERNAL_CALLS_SUMMARY,
    LIBRARY_CREATE,
    LIBRARY_DELETE,
    SETTINGS_UPDATE,
    SOURCE_ADD,
    SOURCE_SYNC,
)
from tests.bridge.helpers import wait_task

pytestmark = pytest.mark.integration

Scenario = Callable[[ClientSession], Coroutine[Any, Any, None]]


def server_params(data_dir: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "goodbuddy_kb", "mcp", "--data-dir", str(data_dir), *extra],
        env=dict(os.environ),
    )


@asynccontextmanager
async def mcp_session(data_dir: Path, *extra: str) -> AsyncIterator[ClientSession]:
    async with (
        stdio_client(server_params(data_dir, *extra)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def run_session(data_dir: Path, scenario: Scenario, *extra: str) -> None:
    async def main() -> None:
        async with mcp_session(data_dir, *extra) as session:
            await scenario(session)

    asyncio.run(main())


def add_library(
    client: BlockingClient, folder: Path, name: str, files: dict[str, str], exposed: bool
) -> str:
    library_id = client.call(LIBRARY_CREATE, lib.LibraryCreateRequest(name=name)).library.id
    folder.mkdir(parents=True)
    for file_name, text in files.items():
        (folder / file_name).write_text(text, encoding="utf-8")
    added = client.call(
        SOURCE_ADD,
        src.SourceAddRequest(
            library_id=library_id, kind="folder", location=str(folder), watch=False
        ),
    )
    assert added.task_id is not None
    wait_task(client, added.task_id)
    expose(client, library_id, exposed)
    return library_id


def expose(client: BlockingClient, library_id: str, on: bool) -> None:
    client.call(
        SETTINGS_UPDATE, lib.SettingsUpdateRequest(library_id=library_id, external_access=on)
    )


def text_of(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


POLICY = "# 差旅制度\n\n## 住宿标准\n\n出差住宿标准为每晚 500 元。Hotel allowance: 500 per night.\n"
SECRET = "# Payroll\n\nThe zanzibar bonus pool is confidential.\n"


@pytest.fixture
def seeded(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> tuple[BlockingClient, dict[str, str]]:
    ids = {
        "policies": add_library(client, tmp_path / "p", "公司制度", {"travel.md": POLICY}, True),
        "private": add_library(client, tmp_path / "s", "Private", {"pay.md": SECRET}, False),
        "temp": add_library(
            client, tmp_path / "t", "Temp", {"t.md": "# Temp\n\nzanzibar notes\n"}, True
        ),
        "manuals": add_library(
            client, tmp_path / "m", "Manuals", {"m.md": "# Manual\n\nzanzibar manual\n"}, True
        ),
    }
    return client, ids


async def search(session: ClientSession, **arguments: Any) -> CallToolResult:
    return await session.call_tool("knowledge_search", arguments)


async def library_names(session: ClientSession) -> list[str]:
    listed = await session.call_tool("list_libraries", {})
    assert not listed.is_error, text_of(listed)
    assert listed.structured_content is not None
    return [x["name"] for x in listed.structured_content["libraries"]]


def test_tools_search_refusals_and_mid_session_changes(
    data_dir: Path, seeded: tuple[BlockingClient, dict[str, str]]
) -> None:
    client, ids = seeded

    async def scenario(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"list_libraries", "knowledge_search", "get_reference_context"}
        for tool in tools.values():
            assert tool.description and tool.input_schema["type"] == "object"
            assert tool.output_schema is not None
            assert tool.annotations is not None and tool.annotations.read_only_hint is True
        query = tools["knowledge_search"].input_schema["properties"]["query"]
        assert query["maxLength"] == MAX_QUERY_CHARACTERS and query["minLength"] == 1

        # Only exposed libraries are listed, with their index state.
        listed = await session.call_tool("list_libraries", {})
        assert listed.structured_content is not None
        by_name = {x["name"]: x for x in listed.structured_content["libraries"]}
        assert set(by_name) == {"公司制度", "Temp", "Manuals"}
        assert by_name["公司制度"]["document_count"] == 1
        assert by_name["公司制度"]["chunk_count"] >= 1 and by_name["公司制度"]["fulltext_ready"]
        assert "Private" not in text_of(listed)
        assert "3 libraries are available:" in text_of(listed)

        # A search on an exposed library returns cited results and delimited evidence.
        found = await search(session, query="住宿标准是多少", libraries=["公司制度"], top_k=3)
        assert not found.is_error, text_of(found)
        out = found.structured_content
        assert out is not None and out["results"]
        hit = out["results"][0]
        assert parse_citation_id(hit["citation_id"]) == (
            ids["policies"],
            hit["document_id"],
            hit["chunk_id"],
        )
        assert hit["title"] == "差旅制度" and hit["path"] == "travel.md"
        assert hit["library_name"] == "公司制度" and 0 < hit["relevance"] <= 1
        assert "500" in hit["snippet"]
        assert out["context"].startswith(OPEN_TAG) and out["context"].endswith(CLOSE_TAG)
        assert "500" in out["context"]
        assert {"fts", "cjk"} & set(out["diagnostics"]["used_channels"])
        assert hit["citation_id"] in text_of(found) and OPEN_TAG in text_of(found)

        # Its context, re-checked.
        context = await session.call_tool(
            "get_reference_context", {"citation_id": hit["citation_id"]}
        )
        assert not context.is_error, text_of(context)
        assert context.structured_content is not None
        assert context.structured_content["library"] == "公司制度"
        assert context.structured_content["source_location"].endswith("travel.md")
        assert any(p["is_hit"] for p in context.structured_content["passages"])
        # where the passage is, in words: it printed the locator's dict ("{'lineStart': …")
        located = next(x for x in text_of(context).splitlines() if x.startswith("Locator: "))
        assert "{" not in located and ("line" in located or "差旅制度" in located), located

        # A library that is not exposed is absent from searches and refused by name.
        everywhere = await search(session, query="zanzibar bonus pool confidential")
        assert not everywhere.is_error, text_of(everywhere)
        assert everywhere.structured_content is not None
        assert ids["private"] not in {
            r["library_id"] for r in everywhere.structured_content["results"]
        }
        assert "confidential" not in text_of(everywhere)
        refused = await search(session, query="bonus", libraries=["Private"])
        assert refused.is_error and "no library “Private” is available" in text_of(refused)
        nowhere = await search(session, query="bonus", libraries=["Nonexistent"])
        assert nowhere.is_error and "no library “Nonexistent” is available" in text_of(nowhere)

        # Bad arguments: clear tool errors, and the server keeps serving after each.
        bad_calls: list[tuple[str, dict[str, Any], str]] = [
            ("knowledge_search", {"query": "x" * 4_001}, "at most 4000 characters"),
            ("knowledge_search", {"query": "q", "libraries": ["公司制度"] * 21}, "at most 20"),
            ("knowledge_search", {"query": "q", "top_k": 0}, "top_k"),
            ("knowledge_search", {"query": "q", "top_k": 21}, "top_k"),
            ("knowledge_search", {"query": "   "}, "must contain text"),
            ("knowledge_search", {}, "query"),
            ("get_reference_context", {"citation_id": "not-a-citation"}, "not a citation id"),
            (
                "get_reference_context",
                {"citation_id": f"{ids['policies']}:{'0' * 32}:{'1' * 32}"},
                "This citation is no longer valid",
            ),
        ]
        for tool, arguments, message in bad_calls:
            result = await session.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            assert message in text_of(result), text_of(result)
            assert "x" * 100 not in text_of(result), "the refused input is not echoed"
            assert "公司制度" in await library_names(session)

        # A citation from an unexposed library is refused even with the right ids.
        private_hit = await private_citation(client, ids["private"])
        refused_cite = await session.call_tool(
            "get_reference_context", {"citation_id": private_hit}
        )
        assert refused_cite.is_error
        assert "not from a library available to external AI tools" in text_of(refused_cite)
        assert "confidential" not in text_of(refused_cite)

        # Switched off mid-session: gone at once, its citations too.
        expose(client, ids["policies"], False)
        assert "公司制度" not in await library_names(session)
        off = await search(session, query="住宿", libraries=[ids["policies"]])
        assert off.is_error and "is available" in text_of(off)
        stale = await session.call_tool(
            "get_reference_context", {"citation_id": hit["citation_id"]}
        )
        assert stale.is_error and "not from a library available" in text_of(stale)
        all_exposed = await search(session, query="住宿标准")
        assert all_exposed.structured_content is not None
        assert all(
            r["library_id"] != ids["policies"] for r in all_exposed.structured_content["results"]
        )

        # Deleted mid-session: absent and refused.
        client.call(LIBRARY_DELETE, lib.LibraryDeleteRequest(library_id=ids["temp"]))
        assert await library_names(session) == ["Manuals"]
        gone = await search(session, query="zanzibar", libraries=["Temp"])
        assert gone.is_error and "no library “Temp” is available" in text_of(gone)
        still = await search(session, query="zanzibar manual")
        assert not still.is_error and still.structured_content is not None
        assert {r["library_name"] for r in still.structured_content["results"]} == {"Manuals"}

    run_session(data_dir, scenario)


async def private_citation(client: BlockingClient, library_id: str) -> str:
    from goodbuddy_kb.contracts.methods import RETRIEVE
    from goodbuddy_kb.contracts.retrieval import RetrieveRequest

    found = client.call(RETRIEVE, RetrieveRequest(library_ids=[library_id], query="zanzibar"))
    r = found.results[0]
    return f"{r.library_id}:{r.document_id}:{r.chunk_id}"


def test_a_deleted_passage_is_no_longer_valid(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    library_id = add_library(
        client,
        tmp_path / "docs",
        "Handbook",
        {"keep.md": "# Keep\n\nnothing here\n", "gone.md": "# Gone\n\nquokka facts\n"},
        True,
    )

    async def scenario(session: ClientSession) -> None:
        found = await search(session, query="quokka")
        assert found.structured_content is not None
        cite = found.structured_content["results"][0]["citation_id"]
        assert not (
            await session.call_tool("get_reference_context", {"citation_id": cite})
        ).is_error
        (tmp_path / "docs" / "gone.md").unlink()
        synced = client.call(SOURCE_SYNC, src.SourceSyncRequest(library_id=library_id))
        for task_id in synced.task_ids:
            wait_task(client, task_id)
        stale = await session.call_tool("get_reference_context", {"citation_id": cite})
        assert stale.is_error and "This citation is no longer valid" in text_of(stale)
        assert "valid: This citation" not in text_of(stale), "said once"
        assert "quokka" not in text_of(stale)
        assert await library_names(session) == ["Handbook"]

    run_session(data_dir, scenario)


def test_library_flags_narrow_and_never_widen(
    data_dir: Path, seeded: tuple[BlockingClient, dict[str, str]]
) -> None:
    async def scenario(session: ClientSession) -> None:
        assert await library_names(session) == ["Manuals"]
        found = await search(session, query="zanzibar")
        assert found.structured_content is not None
        assert {r["library_name"] for r in found.structured_content["results"]} == {"Manuals"}
        outside = await search(session, query="zanzibar", libraries=["Temp"])
        assert outside.is_error and "Temp" in text_of(outside)

    run_session(data_dir, scenario, "--library", "manuals", "--library", "Private")


def test_the_call_record_counts_calls_without_their_text(
    data_dir: Path, seeded: tuple[BlockingClient, dict[str, str]], tmp_path: Path
) -> None:
    client, _ids = seeded
    marker = "platypus-marker-7731"

    async def scenario(session: ClientSession) -> None:
        await session.call_tool("list_libraries", {})
        await search(session, query=f"{marker} zanzibar")
        await search(session, query="q", top_k=0)
        await session.call_tool("get_reference_context", {"citation_id": marker})

    run_session(data_dir, scenario)
    summary = client.call(EXTERNAL_CALLS_SUMMARY, ExternalCallsSummaryRequest())
    stats = {s.tool: s for s in summary.tools}
    assert (stats["list_libraries"].calls, stats["list_libraries"].errors) == (1, 0)
    assert (stats["knowledge_search"].calls, stats["knowledge_search"].errors) == (2, 1)
    assert (stats["get_reference_context"].calls, stats["get_reference_context"].errors) == (1, 1)
    assert summary.total_calls == 4 and summary.exposed_libraries == 3
    assert stats["knowledge_search"].p50_ms is not None and stats["knowledge_search"].p50_ms > 0
    database = (data_dir / "goodbuddy-kb.sqlite3").read_bytes()
    wal = data_dir / "goodbuddy-kb.sqlite3-wal"
    assert marker.encode() not in database + (wal.read_bytes() if wal.exists() else b"")
    # the support bundle has the failed calls too, by kind (it held only the searches that ran;
    # a refused call never searched; a helper's try)
    from goodbuddy_kb.contracts.diagnostics import DiagnosticsExportRequest
    from goodbuddy_kb.contracts.methods import DIAGNOSTICS_EXPORT

    target = tmp_path / "bundle.json"
    client.call(DIAGNOSTICS_EXPORT, DiagnosticsExportRequest(path=str(target)))
    text = target.read_text(encoding="utf-8")
    calls = json.loads(text)["externalCalls"]
    assert calls["totalCalls"] == 4 and calls["totalErrors"] == 2
    kinds = {(k["tool"], k["kind"]): k["count"] for k in calls["errorKinds"]}
    assert sum(kinds.values()) == 2 and {t for t, _ in kinds} == {
        "knowledge_search",
        "get_reference_context",
    }, kinds
    assert marker not in text


def test_an_unreachable_embedding_service_degrades_to_full_text(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    from goodbuddy_kb.contracts.methods import EMBEDDING_UPDATE
    from goodbuddy_kb.contracts.models import EmbeddingConnection, EmbeddingUpdateRequest

    add_library(client, tmp_path / "d", "Notes", {"n.md": "# Notes\n\nwombat migration\n"}, True)
    client.call(
        EMBEDDING_UPDATE,
        EmbeddingUpdateRequest(
            connection=EmbeddingConnection(
                kind="openai-compatible",
                base_url="http://127.0.0.1:9/v1",
                model="text-embedding-3-small",
                timeout_s=2.0,
            )
        ),
    )

    async def scenario(session: ClientSession) -> None:
        found = await search(session, query="wombat migration")
        assert not found.is_error, text_of(found)
        out = found.structured_content
        assert out is not None and out["results"], "full-text still answers"
        assert "wombat" in out["results"][0]["snippet"]
        degraded = {d["channel"]: d["reason"] for d in out["diagnostics"]["degraded_channels"]}
        assert degraded.get("vector")
        assert "vector" not in out["diagnostics"]["used_channels"]
        assert "Degraded: " in text_of(found) and "vector" in text_of(found)
        listed = await session.call_tool("list_libraries", {})
        assert listed.structured_content is not None
        (notes,) = listed.structured_content["libraries"]
        assert any(d["channel"] == "vector" for d in notes["degraded_channels"])

    run_session(data_dir, scenario)


def test_a_cancelled_search_is_dropped_and_the_server_keeps_serving(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    """The client gives up on a slow search (`notifications/cancelled`): it has its control back
    at once, the backend stops the search, and the next search gets its own answer."""
    import anyio

    from tests.bridge.helpers import library_with_docs, use_remote
    from tests.servers.embedserver import Script, openai_server

    script = Script()
    with openai_server(script) as base:
        use_remote(client, base)
        library_id = library_with_docs(client, tmp_path / "docs")
        expose(client, library_id, True)

        async def scenario(session: ClientSession) -> None:
            assert await library_names(session) == ["Rebuild"]
            script.delay_s = 2.0  # the query embedding now takes two seconds
            started = time.monotonic()
            with anyio.move_on_after(0.5) as waited:
                await search(session, query="topic1x3")
            assert waited.cancelled_caught
            assert time.monotonic() - started < 1.5
            script.delay_s = 0.0
            found = await search(session, query="topic2x3")
            assert not found.is_error, text_of(found)
            assert found.structured_content is not None
            assert found.structured_content["query"] == "topic2x3"
            assert found.structured_content["results"][0]["path"] == "doc2.md"
            assert await library_names(session) == ["Rebuild"]

        run_session(data_dir, scenario)
    summary = client.call(EXTERNAL_CALLS_SUMMARY, ExternalCallsSummaryRequest())
    stats = {s.tool: s for s in summary.tools}
    assert (stats["knowledge_search"].calls, stats["knowledge_search"].errors) == (2, 1)
