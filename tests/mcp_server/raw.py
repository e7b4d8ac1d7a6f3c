"""A `goodbuddy-kb mcp` process driven by raw JSON lines, as a third-party MCP client drives it
(for what the SDK's own client would never send, and for timing the process's shutdown)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts.external import (
    ExternalCallsSummaryRequest,
    ExternalCallsSummaryResponse,
)
from goodbuddy_kb.contracts.methods import EXTERNAL_CALLS_SUMMARY

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawServer:
    def __init__(self, proc: subprocess.Popen[bytes], stderr: Path) -> None:
        self.proc = proc
        self.stderr = stderr
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(OSError, ValueError):  # closed at the end of the test
            for line in self.proc.stdout:
                self._lines.put(line)
        self._lines.put(b"")

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.proc.stdin is not None
        raw = message if isinstance(message, bytes) else (json.dumps(message) + "\n").encode()
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def answer(self, msg_id: int | str | None, timeout: float = 30.0) -> dict[str, Any]:
        """The next message answering ``msg_id`` (None: an error to no request)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no answer to {msg_id!r} within {timeout} s") from None
            assert line, "the server closed its output"
            message: dict[str, Any] = json.loads(line)
            if "method" not in message and message.get("id") == msg_id:
                return message

    def call_tool(self, msg_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments}
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": params})
        return self.answer(msg_id)

    def handshake(self) -> None:
        self.send(INITIALIZE)
        assert "result" in self.answer(1)
        self.send(INITIALIZED)

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def signal(self, signum: signal.Signals) -> None:
        os.kill(self.proc.pid, signum)

    def wait(self, timeout: float = 30.0) -> int:
        return self.proc.wait(timeout=timeout)

    def error_output(self) -> str:
        return self.stderr.read_text(encoding="utf-8", errors="replace")


@contextmanager
def raw_server(data_dir: Path, *extra: str) -> Iterator[RawServer]:
    stderr = data_dir.parent / f"mcp-stderr-{time.monotonic_ns()}.txt"
    with open(stderr, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "goodbuddy_kb", "mcp", "--data-dir", str(data_dir), *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    try:
        yield RawServer(proc, stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()


def calls_summary(client: BlockingClient) -> ExternalCallsSummaryResponse:
    return client.call(EXTERNAL_CALLS_SUMMARY, ExternalCallsSummaryRequest())
