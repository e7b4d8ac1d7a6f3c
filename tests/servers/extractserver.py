"""A loopback OpenAI-compatible chat server for graph extraction tests: each request is answered
by a function of the request body (the chunk it carries), as a streamed JSON answer, an HTTP
error, or a stall; it records every request and when it arrived. ``refusing_json_schema`` makes
one that refuses a JSON schema with HTTP 400."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.httpserver import serve_handler

#: {"answer": dict | str} | {"status": int, "error"?: dict} | {"stall": seconds}
Reply = dict[str, Any]


def chunk_of(body: dict[str, Any]) -> str:
    """The chunk text the extractor put in the user message (as JSON data)."""
    user = next(m for m in body["messages"] if m["role"] == "user")
    return str(json.loads(user["content"])["chunk"])


def refusing_json_schema(
    answer: Callable[[dict[str, Any]], Reply],
) -> Callable[[dict[str, Any]], Reply]:
    """A server that knows JSON mode but not a JSON schema (as several OpenAI-compatible ones
    do): a request with ``response_format: json_schema`` gets HTTP 400 and the error body such
    a server sends; any other is answered by ``answer``."""

    def reply(body: dict[str, Any]) -> Reply:
        if (body.get("response_format") or {}).get("type") == "json_schema":
            message = "response_format of type 'json_schema' is not supported by this server"
            return {
                "status": 400,
                "error": {"error": {"message": message, "type": "invalid_request_error"}},
            }
        return answer(body)

    return reply


@dataclass
class ExtractScript:
    answer: Callable[[dict[str, Any]], Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    arrived: list[float] = field(default_factory=list)


@contextmanager
def extract_server(script: ExtractScript) -> Iterator[str]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            with lock:
                script.requests.append(body)
                script.arrived.append(time.monotonic())
            reply = script.answer(body)
            try:
                if "status" in reply:
                    error = json.dumps(reply.get("error", {})).encode() if "error" in reply else b""
                    self.send_response(reply["status"])
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(error)))
                    self.end_headers()
                    self.wfile.write(error)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                if "stall" in reply:
                    for _ in range(int(reply["stall"] * 20)):
                        time.sleep(0.05)
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                answer = reply.get("answer", {"entities": [], "relations": []})
                text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
                for start in range(0, len(text), 16):
                    event = {
                        "choices": [{"index": 0, "delta": {"content": text[start : start + 16]}}]
                    }
                    self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler, "/v1") as base:
        yield base
