"""The backend idles: numpy's OpenBLAS workers, which spin after every matrix product, are told
to sleep within milliseconds (the backend's environment, read from /proc at the process
boundary), and nothing wakes it while nothing happens (its threads' context switches). The CPU
figures themselves are bench/idle_cpu.py's: too noisy on a shared machine for a test."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.methods import SYSTEM_PING
from goodbuddy_kb.contracts.system import PingRequest
from goodbuddy_kb.selfexec import BLAS_ENVIRONMENT

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def blas_timeout(pid: int) -> str:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    environment = dict(item.decode().split("=", 1) for item in raw if b"=" in item)
    return environment["OPENBLAS_THREAD_TIMEOUT"]


def switches(pid: int, tid: int) -> int:
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/task/{tid}/status").read_text().splitlines()
    )
    return int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"])


def test_an_idle_backend_sleeps_and_still_stops_at_a_signal(
    backend: BackendProcess, client: BlockingClient
) -> None:
    assert blas_timeout(backend.pid) == BLAS_ENVIRONMENT["OPENBLAS_THREAD_TIMEOUT"]
    assert int(blas_timeout(backend.pid)) <= 24, "OpenBLAS spins 2^N cycles: a few ms at most"
    client.call(SYSTEM_PING, PingRequest())
    time.sleep(0.3)
    before = switches(backend.pid, backend.pid)  # the Qt thread, which serves the socket
    time.sleep(1.5)
    assert switches(backend.pid, backend.pid) - before <= 1, "woken while nothing happened"
    # Signals still reach it at once: SIGTERM stops it cleanly.
    os.kill(backend.pid, signal.SIGTERM)
    assert backend.popen.wait(timeout=10) == 0
