"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests: streams replies (a reply may
be computed from the request, e.g. to cite a number it was given), emits tool calls (the
arguments may be computed from the request, e.g. to echo or forge the scope token), can stall
mid-stream, and records what it received and when a client went away; ``evidence_of`` reads
back the numbered passages a request carried."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.httpserver import serve_handler

Step = dict[
    str, Any
]  # {"text": str | callable(request) -> str} | {"tool": {...} | callable(request) -> dict}
#    | {"stall": seconds}


def evidence_of(request: dict[str, Any]) -> dict[int, str]:
    """number → passage (title line and text) of every evidence block in ``request``'s
    messages (the pre-search's user block and the tool answers), as the model read them but
    for each title's relevance (see `relevance_of`), which differs from one search to the next."""
    passages: dict[int, str] = {}
    for message in request.get("messages", []):
        content = message.get("content") or ""
        if "<untrusted-evidence" not in content:
            continue
        body = content.split("</untrusted-evidence>")[0]
        for match in re.finditer(r"\n\n\[(\d+)\] (.*?)(?=\n\n\[\d+\] |\Z)", body, re.S):
            passages[int(match.group(1))] = RELEVANCE.sub("", match.group(2), count=1)
    return passages


#: The relevance the model reads after a passage's title.
RELEVANCE = re.compile(r" \(relevance (\d\.\d\d)(?:; knowledge graph: [^\n]*)?\)(?=\n|$)")


def relevance_of(request: dict[str, Any]) -> dict[int, float]:
    """number → the relevance the model read with passage n of ``request``'s evidence."""
    found: dict[int, float] = {}
    for message in request.get("messages", []):
        content = message.get("content") or ""
        for match in re.finditer(r"\n\n\[(\d+)\] ([^\n]*)\n", content):
            rated = RELEVANCE.search(match.group(2))
            if rated:
                found[int(match.group(1))] = float(rated.group(1))
    return found


def token_of(request: dict[str, Any]) -> str:
    """The scope token the runtime put in the knowledge_search tool description."""
    for tool in request.get("tools", []):
        match = re.search(r"scope token exactly: (\S+)", tool["function"]["description"])
        if match:
            return match.group(1)
    return ""


@dataclass
class ChatScript:
    turns: list[list[Step]] = field(default_factory=list)  # one list of steps per model turn
    requests: list[dict[str, Any]] = field(default_factory=list)
    disconnected_at: float | None = None
    calls: int = 0


@contextmanager
def chat_server(script: ChatScript) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            script.requests.append(body)
            steps = (
                script.turns[script.calls]
                if script.calls < len(script.turns)
                else [{"text": "(no more script)"}]
            )
            script.calls += 1
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for step in steps:
                    if "stall" in step:
                        for _ in range(int(step["stall"] * 20)):
                            time.sleep(0.05)
                            self.wfile.write(b": keep-alive\n\n")
                            self.wfile.flush()
                        continue
                    if "text" in step:
                        text = step["text"](body) if callable(step["text"]) else step["text"]
                        for piece in re.findall(r".{1,4}", text, re.S):
                            self._event({"choices": [{"index": 0, "delta": {"content": piece}}]})
                    if "tool" in step:
                        args = step["tool"](body) if callable(step["tool"]) else step["tool"]
                        call = {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {
                                "name": step.get("name", "knowledge_search"),
                                "arguments": json.dumps(args),
                            },
                        }
                        self._event({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                script.disconnected_at = time.monotonic()

        def _event(self, payload: dict[str, Any]) -> None:
            self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
            self.wfile.flush()

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler, "/v1") as base:
        yield base


def tool(
    args: dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]],
    name: str = "knowledge_search",
) -> Step:
    return {"tool": args, "name": name}
