"""Fixtures of the bridge tests: a client of a real backend process whose platform opener
records what it is asked to open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess


@pytest.fixture
def live(opened_log: Path, data_dir: Path) -> Iterator[BlockingClient]:
    process = BackendProcess.start(data_dir)
    try:
        with BlockingClient(process.endpoint.server_name, process.endpoint.secret, "t").open() as c:
            yield c
    finally:
        process.stop()
