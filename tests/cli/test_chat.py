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
from tests.bridge.helpers import POLICY, library_with
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


def test_a_question_asked_from_the_command_line_is_answered_with_its_sources(
    data_dir: Path, tmp_path: Path
) -> None:
    """The command line could set up and test a chat model but not ask it anything (a helper's
    try): `chat ask` searches first, gives the model what it found, and prints the answer with
    the sources its markers point to; `--conversation` continues the same conversation."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "travel.md").write_text(POLICY, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    (other / "copy.md").write_text(POLICY + "\n副本：出差住宿标准同上。\n", encoding="utf-8")
    rules = json.loads(run(data_dir, "--json", "library", "create", "Rules").stdout)["id"]
    run(data_dir, "library", "create", "Other")
    assert run(data_dir, "source", "add", "Rules", str(folder)).returncode == 0
    assert run(data_dir, "source", "add", "Other", str(other)).returncode == 0
    script = ChatScript(
        turns=[
            [{"text": lambda r: f"住宿费标准见制度 [{min(evidence_of(r))}]。"}],
            [{"text": "Yes, the same rule [1]."}],
        ]
    )
    with chat_server(script) as base:
        model = ("model", "chat", "--provider", "openai-compatible", "--url", base, "--model", "m")
        assert run(data_dir, *model).returncode == 0
        asked = run(data_dir, "chat", "ask", "出差住宿标准是多少？", "--library", "Rules")
        assert asked.returncode == 0, asked.stderr
        assert "住宿费标准见制度 [1]" in asked.stdout and "[1] Rules / 差旅制度" in asked.stdout
        # the model was given the passage under the number its answer used
        assert "住宿" in evidence_of(script.requests[0])[1]
        conversation = json.loads(run(data_dir, "--json", "chat", "list").stdout)
        (only,) = conversation["conversations"]
        again = run(data_dir, "--json", "chat", "ask", "住宿呢？", "--conversation", only["id"][:8])
        assert again.returncode == 0, again.stderr
        answer = json.loads(again.stdout)["assistantMessage"]
        assert "the same rule [1]" in answer["content"]
        # a conversation continued searches what it searched: Rules, not Other too
        assert answer["citations"] and {c["libraryId"] for c in answer["citations"]} == {rules}
        assert evidence_of(script.requests[1]) == evidence_of(script.requests[0]), (
            "the same library's passage, and not Other's copy of it"
        )
        # the earlier answer goes back to the model without its markers: its [1] was another
        # turn's evidence, and the new evidence is numbered from [1] again (a helper's try)
        earlier = [m["content"] for m in script.requests[1]["messages"] if m["role"] == "assistant"]
        assert earlier == ["住宿费标准见制度。"], earlier
    shown = run(data_dir, "chat", "show", only["id"])
    assert "> 出差住宿标准是多少？" in shown.stdout and "> 住宿呢？" in shown.stdout
    # the model is gone: the answer fails, says why, and the exit status says so
    failed = run(data_dir, "chat", "ask", "还有吗？", "--library", "Rules")
    assert failed.returncode == 1 and "failed: the chat model cannot be reached" in failed.stdout
    # the reason said once (it was printed twice: "(failed: …)" and "the answer failed: …")
    assert failed.stdout.count("the chat model cannot be reached") == 1, failed.stdout
    unknown = run(data_dir, "chat", "ask", "x", "--library", "Nope")
    assert unknown.returncode == 1 and "Nope" in unknown.stderr
