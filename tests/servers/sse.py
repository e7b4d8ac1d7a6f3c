"""A loopback OpenAI-compatible chat endpoint that streams whatever a test hands it: each POST is
answered by ``payloads_for(request body)`` sent as raw ``data:`` lines then ``[DONE]`` (HTTP 500
when it returns None). For hostile streams the well-behaved servers beside it cannot send."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.servers.httpserver import serve_handler

Payloads = Callable[[dict[str, Any]], list[str] | None]


@contextmanager
def sse_server(payloads_for: Payloads) -> Iterator[str]:
    """Serve ``payloads_for``; yields the base URL (``…/v1``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
            payloads = payloads_for(body)
            if payloads is None:
                self.send_response(500)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for payload in payloads:
                    self.wfile.write(b"data: " + payload.encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler, "/v1") as base:
        yield base
