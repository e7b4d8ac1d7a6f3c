"""`goodbuddy-kb model …`: the model connections set up, tested and listed from the command line
against real loopback services (the command line had no way to, though its messages sent people
to the window's Settings → Model connections for a chat model or a rerank service)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from tests.cli.runner import run
from tests.servers.chatserver import ChatScript, chat_server
from tests.servers.embedserver import Script, openai_server
from tests.servers.httpserver import serve_handler

pytestmark = pytest.mark.integration

KEY = "sk-test-secret-4711"


@contextmanager
def models_server() -> Iterator[str]:
    """``/v1/models`` that answers only with the right bearer key."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            allowed = self.headers.get("Authorization") == f"Bearer {KEY}"
            body = (
                json.dumps({"data": [{"id": "qwen2.5-7b"}, {"id": "bge-m3"}]})
                if allowed
                else json.dumps({"error": {"message": "invalid key"}})
            ).encode()
            self.send_response(200 if allowed else 401)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler, "/v1") as base:
        yield base


def test_model_connections_are_set_up_tested_and_listed(data_dir: Path, tmp_path: Path) -> None:
    shown = run(data_dir, "model", "show")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    # (the tests' data directories embed with the deterministic provider)
    assert lines[0].startswith("embedding  deterministic") and "no text leaves it" in lines[0]
    assert lines[1].startswith("chat       none: a question lists the passages found")
    assert lines[2].startswith("rerank     not set up")

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Travel\n\nHotels up to 600 a night.\n", encoding="utf-8")
    run(data_dir, "library", "create", "Notes")
    assert run(data_dir, "source", "add", "Notes", str(folder)).returncode == 0

    with openai_server(Script(dims=64)) as base:
        # a key from an environment variable, never an argument; the test calls the service
        changed = run(
            data_dir,
            *("model", "embedding", "--provider", "openai-compatible", "--url", base),
            *("--model", "text-embed", "--key-env", "KB_EMBED_KEY", "--test"),
            env_extra={"KB_EMBED_KEY": KEY},
        )
        assert changed.returncode == 0, changed.stderr
        out = changed.stdout
        assert out.startswith(f"embedding  openai-compatible  text-embed  {base}")
        assert "an API key is stored" in out and KEY not in out
        assert "test: ok, 64 dimensions" in out
        # the library's vectors were made by the bundled model: it says so, and how to rebuild
        assert "Notes: its vectors were made by " in out
        assert "--vectors` makes them again" in out
        rebuilt = run(data_dir, "rebuild", "Notes", "--vectors")
        assert rebuilt.returncode == 0, rebuilt.stderr + rebuilt.stdout
        assert "made by" not in run(data_dir, "model", "embedding", "--timeout", "20").stdout
        wire = json.loads(run(data_dir, "--json", "model", "show").stdout)
        assert wire["embedding"]["connection"]["timeoutS"] == 20
        assert wire["embedding"]["hasApiKey"] is True and KEY not in json.dumps(wire)

    script = ChatScript(turns=[[{"text": "pong"}]])
    with chat_server(script) as chat_base:
        chat = run(
            data_dir,
            *("model", "chat", "--provider", "openai-compatible", "--url", chat_base),
            *("--model", "qwen2.5-7b", "--test"),
        )
        assert chat.returncode == 0, chat.stderr
        assert "test: ok" in chat.stdout and "pong" in chat.stdout
        assert "questions and the passages found are sent there" in chat.stdout
    assert script.calls == 1
    down = run(data_dir, "model", "chat", "--test")
    assert down.returncode == 1 and "test failed:" in down.stdout, down.stdout
    # a change whose test fails is not saved (it was: one typo turned a working setup off)
    moved = run(data_dir, "model", "chat", "--url", "http://127.0.0.1:9/v1", "--test")
    assert moved.returncode == 1 and "nothing was saved" in moved.stdout, moved.stdout
    assert chat_base in run(data_dir, "model", "chat").stdout

    # no embedding model: semantic search is off, and no rebuild is offered that cannot help
    off = run(data_dir, "model", "embedding", "--provider", "none")
    assert off.returncode == 0 and "semantic search is off: every library" in off.stdout
    assert "--vectors" not in off.stdout
    no_model = run(data_dir, "rebuild", "Notes", "--vectors")
    assert no_model.returncode == 1 and "no embedding model is set up" in no_model.stderr
    # the bundled or test model again: the remote address is not shown beside it
    back = run(data_dir, "model", "embedding", "--provider", "deterministic")
    assert back.returncode == 2  # not a provider a person chooses
    local = run(data_dir, "model", "embedding", "--provider", "local")
    assert local.returncode == 0 and "127.0.0.1" not in local.stdout.splitlines()[0]

    with models_server() as listing:
        refused = run(
            data_dir, "model", "list", "chat", "--provider", "openai-compatible", "--url", listing
        )
        assert refused.returncode == 1 and "cannot list the models" in refused.stdout
        listed = run(
            data_dir,
            *("model", "list", "chat", "--provider", "openai-compatible", "--url", listing),
            "--key-stdin",
            stdin=KEY + "\n",
        )
        assert listed.returncode == 0, listed.stdout + listed.stderr
        assert listed.stdout.split() == ["bge-m3", "qwen2.5-7b"]


def test_bad_model_settings_are_refused_naming_the_option(data_dir: Path) -> None:
    bad_url = run(
        data_dir, "model", "chat", "--provider", "ollama", "--url", "ftp://host", "--model", "qwen"
    )
    assert bad_url.returncode == 1
    assert "the service address must start with http:// or https://" in bad_url.stderr
    no_model = run(
        data_dir,
        "model",
        "chat",
        "--provider",
        "openai-compatible",
        "--url",
        "http://127.0.0.1:9/v1",
    )
    assert no_model.returncode == 1
    assert "--model: openai-compatible needs the model's name" in no_model.stderr
    # a key in the address was saved and shown as the address, and sent as Basic auth
    for url in ("http://user:sk-secret@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?api_key=sk-secret"):
        keyed = run(data_dir, "model", "chat", "--provider", "ollama", "--url", url, "--model", "q")
        assert keyed.returncode == 1, keyed.stdout
        assert "give the key as the API key" in keyed.stderr or "give a key" in keyed.stderr
        assert "sk-secret" not in keyed.stderr
    # a key given where a variable's name goes is not echoed; an empty variable is not "unset"
    mistaken = run(data_dir, "model", "chat", "--key-env", "sk-live-4711")
    assert mistaken.returncode == 1 and "sk-live-4711" not in mistaken.stderr
    assert "give the name of an environment variable" in mistaken.stderr
    empty = run(data_dir, "model", "chat", "--key-env", "KB_EMPTY", env_extra={"KB_EMPTY": ""})
    assert empty.returncode == 1 and "the variable KB_EMPTY is empty" in empty.stderr
    unset = run(data_dir, "model", "rerank", "--key-env", "KB_NO_SUCH_VARIABLE")
    assert unset.returncode == 1
    assert "--key-env: the variable KB_NO_SUCH_VARIABLE is not set" in unset.stderr
    timeout = run(data_dir, "model", "embedding", "--timeout", "0")
    assert timeout.returncode == 1 and "--timeout: must be at least 1" in timeout.stderr
    # nothing was saved by the refusals
    wire = json.loads(run(data_dir, "--json", "model", "show").stdout)
    assert wire["chat"]["connection"]["kind"] == "none"
    assert wire["embedding"]["connection"]["kind"] == "deterministic"
