"""A loopback OpenAI-compatible chat endpoint that streams whatever a test hands it: each POST is
answered by ``payloads_for(request body)`` sent as raw ``data:`` lines then ``[DONE]`` (HTTP 500
when it returns None). For hostile streams the well-behaved servers beside it cannot send."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
