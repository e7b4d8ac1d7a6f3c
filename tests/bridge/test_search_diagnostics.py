"""Every search lands in the diagnostics record (PRD §13) — the chat's search before its model
answers ("always"), the chat model's own search ("auto") and an external AI tool's search over
MCP (stdio) — with where it came from, its retrieval mode and how many libraries it covered,
never its query; and the exported bundle names no file, not even the one whose failure a task
reports. Real backend, real socket, a loopback chat model, the real `goodbuddy-kb mcp`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts import diagnostics as d
from goodbuddy_kb.contracts import rebuild as rb
from goodbuddy_kb.contracts import retrieval as r
from goodbuddy_kb.contracts.methods import (
    CHAT_MODEL_UPDATE,
    CHAT_SEND,
    CONVERSATION_CREATE,
    DIAGNOSTICS_EXPORT,
    DIAGNOSTICS_SUMMARY,
    LIBRARY_REBUILD,
    RETRIEVE,
)
from tests.bridge.helpers import (
    chunking,
    library_with,
    library_with_docs,
    unreachable_embedding,
    wait_task,
    write_doc,
)
from tests.mcp_server.test_stdio import expose, run_session, search, text_of
from tests.servers.chatserver import ChatScript, chat_server, token_of, tool

pytestmark = pytest.mark.integration

ALWAYS_QUERY = "alwaysmarkerqq 出差住宿标准"
TOOL_QUERY = "toolmarkerqq 住宿标准"
MCP_QUERY = "mcpmarkerqq 住宿标准"
FAILED_FILE = "ledgermarkerff-2026.md"
MARKERS = ("alwaysmarkerqq", "toolmarkerqq", "mcpmarkerqq", "ledgermarkerff")


def chat(client: BlockingClient, text: str, library_ids: list[str], mode: str) -> ch.ChatMessage:
    conversation = client.call(CONVERSATION_CREATE, ch.ConversationCreateRequest())
    request = ch.SendRequest(
        conversation_id=conversation.id,
        text=text,
        library_ids=library_ids,
        mode=mode,  # type: ignore[arg-type]
    )
    return client.call(CHAT_SEND, request).assistant_message


def with_a_failed_file(client: BlockingClient, folder: Path) -> str:
    """A library whose rebuild fails on one file: the task's reason names that file."""
    folder.mkdir()
    write_doc(folder, 2, name=FAILED_FILE)
    library_id = library_with_docs(client, folder, count=1)
    (folder / FAILED_FILE).write_bytes(b"\x00\x01binary" * 500)
    chunking(client, library_id, "structure")
    task_id = client.call(LIBRARY_REBUILD, rb.LibraryRebuildRequest(library_id=library_id)).task_id
    task = wait_task(client, task_id)[0]
    assert task.error and FAILED_FILE in task.error, task.error
    return library_id


def test_chat_and_mcp_searches_are_recorded_with_their_mode_and_no_query(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    alpha = library_with(client, tmp_path / "alpha", "Alpha")
    beta = library_with(client, tmp_path / "beta", "Beta")
    with_a_failed_file(client, tmp_path / "gamma")
    script = ChatScript(
        turns=[
            [{"text": "Answered from the evidence."}],
            [tool(lambda r: {"query": TOOL_QUERY, "token": token_of(r)})],
            [{"text": "Answered after searching."}],
        ]
    )
    with chat_server(script) as base:
        connection = ch.ChatConnection(kind="openai-compatible", base_url=base, model="m")
        client.call(CHAT_MODEL_UPDATE, ch.ChatUpdateRequest(connection=connection))
        first = chat(client, ALWAYS_QUERY, [alpha, beta], "always")
        second = chat(client, "how much per night?", [alpha], "auto")
    assert first.retrieval is not None and first.retrieval.mode == "always"
    assert second.retrieval is not None and second.retrieval.searches == 1

    for library_id in (alpha, beta):
        expose(client, library_id, True)

    async def scenario(session: ClientSession) -> None:
        found = await search(session, query=MCP_QUERY)
        assert not found.is_error, text_of(found)

    run_session(data_dir, scenario)

    summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=50))
    seen = searches(summary.to_wire()["recent"])
    assert seen["chat-presearch"] == {"mode": "always", "libraries": 2}
    assert seen["chat-tool"] == {"mode": "auto", "libraries": 1}
    assert seen["mcp"] == {"mode": "direct", "libraries": 2}

    target = tmp_path / "bundle.json"
    client.call(DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(target)))
    text = target.read_text(encoding="utf-8")
    for marker in MARKERS:
        assert marker not in text, marker
    bundle = json.loads(text)
    assert searches(bundle["diagnostics"]["events"]) == seen
    rebuilt = next(f for f in bundle["taskFailures"] if f["kind"] == "rebuild")
    assert "(first: <file>: " in rebuilt["reason"], "the reason stays, the name is replaced"


def test_a_chat_without_a_model_is_recorded_as_searching_first(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    """With no chat model, "model decides" searches first (no model to decide): the record
    said "model decides" beside a scope button saying "Always retrieve first" (a helper's
    try)."""
    alpha = library_with(client, tmp_path / "alpha", "Alpha")
    answer = chat(client, ALWAYS_QUERY, [alpha], "auto")
    assert answer.retrieval is not None and answer.retrieval.mode == "always"
    summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=50))
    assert searches(summary.to_wire()["recent"])["chat-presearch"] == {
        "mode": "always",
        "libraries": 1,
    }


def test_a_chat_answer_is_recorded_and_a_model_out_of_reach_says_why(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    """Two answers with the chat model out of reach left the record at "Failed 0" and the
    export with nothing to go on (a helper's try). Each answer is a chat event: how it ended,
    its mode, libraries and searches, and the failure's reason, never the question."""
    alpha = library_with(client, tmp_path / "alpha", "Alpha")
    with chat_server(ChatScript(turns=[[{"text": "Fine."}]])) as base:
        connection = ch.ChatConnection(kind="openai-compatible", base_url=base, model="m")
        client.call(CHAT_MODEL_UPDATE, ch.ChatUpdateRequest(connection=connection))
        assert chat(client, ALWAYS_QUERY, [alpha], "always").state == "complete"
    assert chat(client, ALWAYS_QUERY, [alpha], "always").state == "failed"  # the server is gone
    summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=50))
    chats = [e for e in summary.to_wire()["recent"] if e["kind"] == "chat"]
    assert [e["outcome"] for e in chats] == ["failed", "ok"]  # newest first
    failed = chats[0]["details"]
    assert (failed["mode"], failed["libraries"], failed["searches"]) == ("always", 1, 1)
    assert "chat model" in failed["error"], failed
    total = next(t for t in summary.to_wire()["totals"] if t["kind"] == "chat")
    assert (total["count"], total["failed"]) == (2, 1)
    target = tmp_path / "bundle.json"
    client.call(DIAGNOSTICS_EXPORT, d.DiagnosticsExportRequest(path=str(target)))
    text = target.read_text(encoding="utf-8")
    assert "alwaysmarkerqq" not in text and '"kind": "chat"' in text


def searches(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The newest search of each origin: its mode and library count."""
    found: dict[str, dict[str, Any]] = {}
    for event in events:  # newest first
        details = event["details"]
        if event["kind"] == "retrieve" and details.get("origin") not in found:
            found[details.get("origin")] = {
                "mode": details.get("mode"),
                "libraries": details["libraries"],
            }
    return {origin: seen for origin, seen in found.items() if origin != "retrieve"}


def test_a_reason_several_libraries_give_is_said_once_and_a_graph_note_is_no_fault(
    client: BlockingClient, tmp_path: Path
) -> None:
    """Two libraries whose vector indexes both need a rebuild gave "vector, vector" in the
    diagnostics (three times over in the record); and "no entity of the graph was found in the
    question" stood among the degraded channels of every search, even those that were fine."""
    alpha = library_with(client, tmp_path / "alpha", "Alpha")
    beta = library_with(client, tmp_path / "beta", "Beta")
    asked = r.RetrieveRequest(library_ids=[alpha, beta], query="出差住宿标准 zzqq")

    def newest_search() -> d.DiagnosticEvent:
        summary = client.call(DIAGNOSTICS_SUMMARY, d.DiagnosticsSummaryRequest(recent=5))
        return next(e for e in summary.recent if e.kind == "retrieve")

    fine = client.call(RETRIEVE, asked)
    assert not [x for x in fine.diagnostics.degraded_channels if x.channel == "vector"]
    event = newest_search()
    assert event.outcome == "ok" and event.details["degraded"] == []
    assert [n["channel"] for n in event.details["notes"]] == ["graph"]

    unreachable_embedding(client)  # both indexes were built by another model now
    degraded = client.call(RETRIEVE, asked).diagnostics.degraded_channels
    assert [x.channel for x in degraded if x.channel == "vector"] == ["vector"]
    event = newest_search()
    assert event.outcome == "degraded"
    assert [x["channel"] for x in event.details["degraded"]] == ["vector"]
