"""A scripted HTTP server on 127.0.0.1 for tests (real sockets, real HTTP)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


Route = Callable[[str, bytes], Reply]


@contextmanager
def serve(routes: dict[str, Reply | Route]) -> Iterator[str]:
    """Serve ``routes`` (path → reply or function of (path, body)); yields the base URL."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            route = routes.get(self.path.split("?")[0])
            if route is None:
                reply = Reply(404, b"not found", "text/plain")
            elif callable(route):
                reply = route(self.path, body)
            else:
                reply = route
            if reply.delay_s:
                time.sleep(reply.delay_s)
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = do_POST = _answer  # noqa: N815 - the names http.server dispatches to

        def log_message(self, *args: object) -> None:
            pass

    with serve_handler(Handler) as base:
        yield base


@contextmanager
def serve_handler(handler: type[BaseHTTPRequestHandler], path: str = "") -> Iterator[str]:
    """A threaded HTTP server on 127.0.0.1 answering with ``handler``; yields its address with
    ``path`` after it, and stops when the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()


RawHandler = Callable[[socket.socket], None]


@contextmanager
def serve_raw(handler: RawHandler) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that hands each connection to ``handler`` (for misbehaving
    servers: trickled headers, bombs, stalls); yields the base URL."""

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(30)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                handler(conn)
            except OSError:
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        listener.close()


def trickle(data: bytes, every_s: float, stop_after_s: float = 60.0) -> RawHandler:
    """A handler that sends ``data`` one byte every ``every_s`` seconds."""

    def run(conn: socket.socket) -> None:
        started = time.monotonic()
        for i in range(len(data)):
            if time.monotonic() - started > stop_after_s:
                return
            conn.sendall(data[i : i + 1])
            time.sleep(every_s)

    return run
