"""`goodbuddy-kb chat …` as a user runs it: a real process, a real backend, conversations made
over the socket with a loopback chat model, then listed, searched, shown with their sources,
exported, renamed and deleted from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts import chat as ch
from goodbuddy_kb.contracts.methods import CHAT_MODEL_UPDATE, CHAT_SEND, CONVERSATION_CREATE
from tests.bridge.helpers import library_with
from tests.cli.runner import cli_json, run
from tests.servers.chatserver import ChatScript, chat_server, evidence_of

pytestmark = pytest.mark.integration


def make_conversations(client: BlockingClient, folder: Path) -> tuple[str, str]:
    """One conversation whose answer cites the travel policy, one about something else."""
    script = ChatScript(
        turns=[
            [{"text": lambda r: f"住宿费标准见制度 [{min(evidence_of(r))}]。"}],
            [{"text": "Lunch is served at noon."}],
        ]
    )
    with chat_server(script) as base:
        connection = ch.ChatConnection(kind="openai-compatible", base_url=base, model="m")
        client.call(CHAT_MODEL_UPDATE, ch.ChatUpdateRequest(connection=connection))
        rules = library_with(client, folder, "Rules")
        ids = []
        for text, libs in (("出差住宿标准？", [rules]), ("When is lunch?", [])):
            conversation = client.call(CONVERSATION_CREATE, ch.ConversationCreateRequest())
            request = ch.SendRequest(
                conversation_id=conversation.id, text=text, library_ids=libs, mode="always"
            )
            client.call(CHAT_SEND, request)
            ids.append(conversation.id)
    return ids[0], ids[1]


def test_chat_commands_list_search_show_export_rename_delete(
    data_dir: Path, client: BlockingClient, tmp_path: Path
) -> None:
    """The commands attach to the backend the conversations were made on, as with the window open."""
    travel, lunch = make_conversations(client, tmp_path / "rules")

    listed = cli_json(data_dir, "chat", "list")["conversations"]
    assert [x["id"] for x in listed] == [lunch, travel]
    found = cli_json(data_dir, "chat", "list", "--query", "住宿费")["conversations"]
    assert [x["id"] for x in found] == [travel] and "住宿费" in found[0]["snippet"]
    text = run(data_dir, "chat", "list", "--query", "lunch")
    assert text.returncode == 0 and lunch[:8] in text.stdout and travel[:8] not in text.stdout

    shown = run(data_dir, "chat", "show", travel[:10])
    assert shown.returncode == 0, shown.stderr
    assert "> 出差住宿标准？" in shown.stdout and "[1] Rules / " in shown.stdout

    out = tmp_path / "travel.html"
    done = run(data_dir, "chat", "export", travel, "--format", "html", "--out", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "住宿费标准见制度 [1]" in page
    again = run(data_dir, "chat", "export", travel, "--format", "html", "--out", str(out))
    assert again.returncode != 0 and "exists" in again.stderr
    assert (
        run(
            data_dir, "chat", "export", travel, "--format", "html", "--out", str(out), "--overwrite"
        ).returncode
        == 0
    )

    renamed = cli_json(data_dir, "chat", "rename", lunch, "午餐")
    assert (renamed["title"], renamed["titleIsDefault"]) == ("午餐", False)
    refused = run(data_dir, "chat", "delete", lunch)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    assert run(data_dir, "chat", "delete", lunch, "--yes").returncode == 0
    assert [x["id"] for x in cli_json(data_dir, "chat", "list")["conversations"]] == [travel]
    missing = run(data_dir, "chat", "show", lunch)
    assert missing.returncode != 0 and "no conversation" in missing.stderr
    assert json.loads(run(data_dir, "--json", "chat", "list", "--query", "午餐").stdout) == {
        "conversations": []
    }
