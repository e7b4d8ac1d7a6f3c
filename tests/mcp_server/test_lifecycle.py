"""The MCP server's process life: it exits when its standard input closes, and a backend it
started exits with it — unless the window is using that backend, which then keeps serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.contracts.library import LibraryListRequest
from goodbuddy_kb.contracts.methods import LIBRARY_LIST
from goodbuddy_kb.contracts.wire import GUI_CLIENT
from goodbuddy_kb.datadir import Endpoint
from goodbuddy_kb.main_process.app import open_database

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def seed(data_dir: Path) -> None:
    """A data directory GoodBuddy KB made (its database), with no backend running."""
    open_database(data_dir).close_all()


def start_server(data_dir: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "goodbuddy_kb", "mcp", "--data-dir", str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer(proc: subprocess.Popen[bytes], msg_id: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed its output"
        message: dict[str, Any] = json.loads(line)
        if message.get("id") == msg_id:
            return message


def handshake_and_list(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    send(
        proc,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "lifecycle-test", "version": "1"},
            },
        },
    )
    assert "result" in answer(proc, 1)
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(
        proc,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "list_libraries", "arguments": {}},
        },
    )
    return answer(proc, 2)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers signal 0; its state says it is gone.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def wait_gone(pid: int, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_stdin_close_stops_the_server_and_the_backend_it_started(data_dir: Path) -> None:
    seed(data_dir)
    proc = start_server(data_dir)
    try:
        listed = handshake_and_list(proc)
        assert listed["result"]["structuredContent"] == {"libraries": []}
        endpoint = Endpoint.read(data_dir)
        assert endpoint is not None and alive(endpoint.pid)
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
        assert wait_gone(endpoint.pid), "the backend it started stopped with it"
        assert Endpoint.read(data_dir) is None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_a_backend_the_window_uses_stays_after_the_server_exits(data_dir: Path) -> None:
    seed(data_dir)
    proc = start_server(data_dir)
    try:
        handshake_and_list(proc)
        endpoint = Endpoint.read(data_dir)
        assert endpoint is not None
        window = BlockingClient(endpoint.server_name, endpoint.secret, GUI_CLIENT).open()
        assert proc.stdin is not None
        proc.stdin.close()
        started = time.monotonic()
        assert proc.wait(timeout=20) == 0
        assert time.monotonic() - started < 6, "the server did not wait for a backend that stays"
        assert alive(endpoint.pid)
        assert window.call(LIBRARY_LIST, LibraryListRequest()).libraries == []
        window.close()
        assert wait_gone(endpoint.pid), "the backend stops when the window lets go"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_the_server_outlives_a_backend_that_goes_away(data_dir: Path) -> None:
    """The window that started the backend closes while the AI tool stays: the backend keeps
    serving the tool (a backend stays while any client is connected) or, if it is gone, the next
    call starts one of the server's own; either way no backend outlives the server."""
    from goodbuddy_kb.bridge.launcher import BackendProcess

    window_backend = BackendProcess.start(data_dir)
    proc = start_server(data_dir)
    try:
        assert "result" in handshake_and_list(proc)
        window_backend.stop()
        send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "list_libraries", "arguments": {}},
            },
        )
        again = answer(proc, 3)
        assert again["result"]["isError"] is False, again
        endpoint = Endpoint.read(data_dir)
        assert endpoint is not None
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
        assert wait_gone(endpoint.pid)
    finally:
        window_backend.stop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
