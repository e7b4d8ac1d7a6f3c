"""The backend idles after its work: numpy's OpenBLAS workers, which spin after every matrix
product, are told to sleep within milliseconds in the backend process (its environment is read
from /proc, where the process boundary is; the CPU figures themselves are bench/idle_cpu.py's,
too noisy on a shared machine for a test)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.selfexec import BLAS_ENVIRONMENT

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]


def test_the_backend_runs_with_openblas_threads_that_sleep_after_their_work(
    backend: BackendProcess,
) -> None:
    raw = Path(f"/proc/{backend.pid}/environ").read_bytes().split(b"\0")
    environment = dict(item.decode().split("=", 1) for item in raw if b"=" in item)
    assert environment["OPENBLAS_THREAD_TIMEOUT"] == BLAS_ENVIRONMENT["OPENBLAS_THREAD_TIMEOUT"]
    assert int(environment["OPENBLAS_THREAD_TIMEOUT"]) <= 24, "spins 2^N cycles: a few ms"
