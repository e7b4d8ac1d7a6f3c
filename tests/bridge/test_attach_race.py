"""A command that attaches to a backend another command started is never stopped under: the
backend counts a connection still authenticating as a client, so the last authenticated client
leaving does not shut it down while another one is attaching (issue seen as one of six
concurrent `library list` commands failing with "the backend closed the connection")."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.library import LibraryListRequest
from goodbuddy_kb.contracts.methods import LIBRARY_LIST

pytestmark = [pytest.mark.integration]


def test_a_client_still_authenticating_keeps_the_backend_serving(tmp_path: Path) -> None:
    process = BackendProcess.start(tmp_path / "data")
    name, secret = process.endpoint.server_name, process.endpoint.secret
    first = BlockingClient(name, secret).open()
    attaching = BlockingClient(name, secret).connect()  # connected, not yet authenticated
    assert process.stop() is None  # the launcher leaves; a client is connected: it stays
    first.close()  # the last authenticated client leaves
    time.sleep(1.0)  # what the backend does about it has happened
    assert process.alive()
    attaching.authenticate()
    assert attaching.call(LIBRARY_LIST, LibraryListRequest()).libraries == []
    attaching.close()
    deadline = time.monotonic() + 15
    while process.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not process.alive(), "the backend stops once its last client has left"
