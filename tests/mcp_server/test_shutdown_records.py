"""The call record at the MCP server's shutdown: a batch in flight when the client leaves is
stored once, the server's own closed connection never makes it start a backend, and SIGTERM
flushes what is not stored yet, within a bounded time even when the backend hangs.

"In flight" is made certain by stopping the backend (SIGSTOP) after the calls: the once-a-second
flush then sends its batch and waits for an answer that comes only after SIGCONT.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.datadir import LOG_FILE, Endpoint
from goodbuddy_kb.main_process.app import open_database
from goodbuddy_kb.mcp_server.record import FLUSH_AFTER_S
from tests.mcp_server.raw import RawServer, calls_summary, raw_server

pytestmark = [pytest.mark.integration, pytest.mark.slow]
CALLS = 3
#: The server's shutdown flushes for at most 3 s (FINISH_TIMEOUT_S) before it lets go.
BOUND_S = 8.0


def make_calls(server: RawServer) -> None:
    server.handshake()
    for n in range(CALLS):
        reply = server.call_tool(10 + n, "list_libraries", {})
        assert reply["result"]["isError"] is False, reply


@contextmanager
def stopped(pid: int) -> Iterator[None]:
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def backend_starts(data_dir: Path) -> int:
    return (data_dir / LOG_FILE).read_text(encoding="utf-8").count("backend: serving")


def test_a_record_in_flight_when_the_client_leaves_is_stored_once(data_dir: Path) -> None:
    """The server started the backend; the client closes stdin while the record is being
    written: no second backend, and each call counted once."""
    open_database(data_dir).close_all()  # a data directory GoodBuddy KB made, no backend
    with raw_server(data_dir) as server:
        make_calls(server)
        endpoint = Endpoint.read(data_dir)
        assert endpoint is not None
        with stopped(endpoint.pid):
            time.sleep(FLUSH_AFTER_S + 0.5)  # the batch is sent and waits for its answer
            server.close_stdin()
            time.sleep(0.5)
        assert server.wait() == 0
    assert backend_starts(data_dir) == 1, "no backend was started during shutdown"
    again = BackendProcess.start(data_dir)
    try:
        endpoint = again.endpoint
        with BlockingClient(endpoint.server_name, endpoint.secret, "test").open() as c:
            summary = calls_summary(c)
    finally:
        again.stop()
    assert summary.total_calls == CALLS, "every call is recorded exactly once"


def test_sigterm_stores_the_records_not_yet_sent(data_dir: Path, client: BlockingClient) -> None:
    with raw_server(data_dir) as server:
        make_calls(server)
        server.signal(signal.SIGTERM)  # before the once-a-second flush
        assert server.wait(timeout=BOUND_S + 10) == 0
    summary = calls_summary(client)
    assert summary.total_calls == CALLS
    assert {s.tool: s.calls for s in summary.tools}["list_libraries"] == CALLS


def test_sigterm_ends_the_server_in_bounded_time_when_the_backend_hangs(
    data_dir: Path, backend: BackendProcess, client: BlockingClient
) -> None:
    with raw_server(data_dir) as server:
        make_calls(server)
        with stopped(backend.pid):
            started = time.monotonic()
            server.signal(signal.SIGTERM)
            assert server.wait(timeout=BOUND_S + 10) == 0
            assert time.monotonic() - started < BOUND_S
        assert "call records may not be stored" in server.error_output()
    assert calls_summary(client).total_calls in (0, CALLS), "never twice"
