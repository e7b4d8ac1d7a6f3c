"""IPC rules over the real QLocalSocket against a real backend process."""

from __future__ import annotations

import os
import signal
import stat
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess, BackendStartError, open_session
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.errors import (
    InvalidRequestError,
    KbError,
    UnauthorizedError,
    UnavailableError,
)
from goodbuddy_kb.contracts.limits import MAX_FRAME_BYTES
from goodbuddy_kb.contracts.methods import (
    LIBRARY_CREATE,
    LIBRARY_LIST,
    NOTIFY_CHANGED,
    SETTINGS_UPDATE,
    SYSTEM_PING,
)
from goodbuddy_kb.contracts.system import PingRequest
from goodbuddy_kb.contracts.wire import (
    AUTHENTICATE,
    HEADER,
    encode_frame,
    request_message,
)
from goodbuddy_kb.datadir import ENDPOINT_FILE, Endpoint

pytestmark = pytest.mark.integration


def raw_client(backend: BackendProcess) -> BlockingClient:
    """Connected but not authenticated."""
    client = BlockingClient(backend.endpoint.server_name, "unused-secret-unused-secret")
    client._socket.connectToServer(backend.endpoint.server_name)
    assert client._socket.waitForConnected(2000)
    return client


def library_names(client: BlockingClient) -> list[str]:
    return [lib.name for lib in client.call(LIBRARY_LIST, c.LibraryListRequest()).libraries]


def expect_unauthorized_and_dropped(client: BlockingClient) -> None:
    reply = client.read_message(timeout=5)
    assert reply["error"]["data"]["code"] == "unauthorized"
    with pytest.raises(UnavailableError):
        client.read_message(timeout=5)


def test_ping_round_trip(client: BlockingClient, backend: BackendProcess) -> None:
    pong = client.call(SYSTEM_PING, PingRequest())
    assert pong.pid == backend.pid and pong.api_version == 1


def test_no_secret_gets_unauthorized_and_no_handler_runs(
    backend: BackendProcess, client: BlockingClient
) -> None:
    intruder = raw_client(backend)
    intruder.send_raw(encode_frame(request_message(1, LIBRARY_CREATE.name, {"name": "evil"})))
    expect_unauthorized_and_dropped(intruder)
    assert library_names(client) == []


def test_wrong_secret_gets_unauthorized_and_no_handler_runs(
    backend: BackendProcess, client: BlockingClient
) -> None:
    intruder = raw_client(backend)
    wrong = backend.endpoint.secret[:-1] + ("0" if backend.endpoint.secret[-1] != "0" else "1")
    intruder.send_raw(
        encode_frame(request_message(1, AUTHENTICATE, {"secret": wrong}))
        + encode_frame(request_message(2, LIBRARY_CREATE.name, {"name": "evil"}))
    )
    expect_unauthorized_and_dropped(intruder)
    assert library_names(client) == []
    with pytest.raises(UnauthorizedError):
        BlockingClient(backend.endpoint.server_name, wrong).open()


def test_over_limit_frame_gets_payload_too_large(backend: BackendProcess) -> None:
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as client:
        client.send_raw(HEADER.pack(MAX_FRAME_BYTES + 1) + b"{")
        reply = client.read_message(timeout=5)
        assert reply["error"]["data"]["code"] == "payload_too_large"
        with pytest.raises(UnavailableError):
            client.read_message(timeout=5)


def settings_update(library_id: str, retrieval: dict[str, Any]) -> dict[str, Any]:
    return request_message(
        9, SETTINGS_UPDATE.name, {"libraryId": library_id, "retrieval": retrieval}
    )


@pytest.mark.parametrize(
    ("retrieval", "field"),
    [
        ({"topK": 0}, "retrieval.topK"),
        ({"topK": 21}, "retrieval.topK"),
        ({"ftsWeight": 0, "vectorWeight": 0, "graphWeight": 0}, "retrieval"),
        ({"topK": 6, "surprise": True}, "retrieval.surprise"),
    ],
)
def test_invalid_params_get_invalid_request_naming_the_field(
    client: BlockingClient, retrieval: dict[str, Any], field: str
) -> None:
    lib = client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="L")).library
    client.send_raw(encode_frame(settings_update(lib.id, retrieval)))
    reply = client.read_message(timeout=5)
    while "id" not in reply:
        reply = client.read_message(timeout=5)
    data = reply["error"]["data"]
    assert data["code"] == "invalid_request"
    fields = [f["field"] for f in data["details"]["fields"]]
    assert field in fields
    if field == "retrieval":
        assert "ftsWeight, vectorWeight, graphWeight" in data["details"]["fields"][0]["problem"]


def test_over_long_name_gets_invalid_request(client: BlockingClient) -> None:
    client.send_raw(encode_frame(request_message(3, LIBRARY_CREATE.name, {"name": "名" * 101})))
    data = client.read_message(timeout=5)["error"]["data"]
    assert data["code"] == "invalid_request"
    assert data["details"]["fields"][0]["field"] == "name"


def test_client_validates_before_sending(client: BlockingClient) -> None:
    request = c.LibraryCreateRequest.model_construct(name="")
    with pytest.raises(InvalidRequestError):
        client.call(LIBRARY_CREATE, request)


def test_mutations_notify_every_client(backend: BackendProcess, client: BlockingClient) -> None:
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as other:
        other.call(SYSTEM_PING, PingRequest())
        lib = client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="Shared")).library
        message = other.read_message(timeout=5)
        assert message["method"] == NOTIFY_CHANGED.name
        assert message["params"]["libraryIds"] == [lib.id]
        assert message["params"]["libraries"] is True


def test_killed_backend_surfaces_within_a_second(
    backend: BackendProcess, client: BlockingClient
) -> None:
    client.call(SYSTEM_PING, PingRequest())
    backend.kill()
    started = time.monotonic()
    with pytest.raises(UnavailableError):
        client.call(SYSTEM_PING, PingRequest(), timeout=30)
    assert time.monotonic() - started < 1.0


def test_stale_lock_from_a_crashed_backend_is_recovered(data_dir: Path) -> None:
    first = BackendProcess.start(data_dir)
    first.kill()
    assert (data_dir / ENDPOINT_FILE).exists(), "a crash leaves its endpoint file behind"
    second = BackendProcess.start(data_dir)
    try:
        with BlockingClient(second.endpoint.server_name, second.endpoint.secret).open() as client:
            assert client.call(SYSTEM_PING, PingRequest()).pid == second.pid
    finally:
        second.stop()


def test_two_backends_never_serve_one_data_directory(
    backend: BackendProcess, data_dir: Path
) -> None:
    with pytest.raises(BackendStartError) as info:
        BackendProcess.start(data_dir)
    assert info.value.reason == "locked"
    session = open_session(data_dir)
    try:
        assert session.process is None, "the second client attaches instead"
        assert session.client.call(SYSTEM_PING, PingRequest()).pid == backend.pid
    finally:
        session.close()
    assert backend.alive()


def test_session_starts_a_backend_when_none_serves(data_dir: Path) -> None:
    session = open_session(data_dir)
    assert session.process is not None
    session.client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="Kept"))
    session.close()
    assert session.process.popen.returncode == 0, "closing the pipe shuts the backend down cleanly"
    assert not (data_dir / ENDPOINT_FILE).exists()
    again = open_session(data_dir)
    try:
        assert library_names(again.client) == ["Kept"]
    finally:
        again.close()


def test_clean_shutdown_on_sigterm_finishes_and_releases(
    backend: BackendProcess, data_dir: Path
) -> None:
    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    os.kill(backend.pid, signal.SIGTERM)
    assert backend.popen.wait(timeout=10) == 0
    assert Endpoint.read(data_dir) is None
    restarted = BackendProcess.start(data_dir)
    restarted.stop()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_endpoint_file_and_data_dir_are_private(backend: BackendProcess, data_dir: Path) -> None:
    assert stat.S_IMODE((data_dir / ENDPOINT_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert backend.endpoint.secret not in " ".join(backend.popen.args)  # type: ignore[arg-type]


def test_errors_cross_the_bridge_as_typed_exceptions(client: BlockingClient) -> None:
    client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="Twin"))
    with pytest.raises(KbError) as info:
        client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="twin"))
    assert info.value.code.value == "conflict"
