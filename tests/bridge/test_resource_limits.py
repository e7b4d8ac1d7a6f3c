"""Bounded backend resources over the real socket (issue 19: bridge concerns and the resource
test): unread replies, deep JSON, and the backend's resident memory while a client floods it and
while hostile files are synced."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts import sources as s
from goodbuddy_kb.contracts.errors import UnavailableError
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, LIBRARY_LIST, SOURCE_ADD, TASKS_LIST
from goodbuddy_kb.contracts.tasks import FINISHED_STATES, TaskListRequest
from goodbuddy_kb.contracts.wire import HEADER, encode_frame, request_message
from tests.docgen import docx_bomb, malformed_docx

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(sys.platform != "linux", reason="reads /proc for resident memory"),
]

#: Stated bounds for the backend's resident memory (idle it holds about 150 MB).
FLOOD_RSS_MB = 400
HOSTILE_SYNC_RSS_MB = 600


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field}")


def test_a_deeply_nested_frame_is_answered_and_the_connection_dropped(
    backend: BackendProcess, client: BlockingClient
) -> None:
    payload = b'{"jsonrpc":"2.0","id":1,"method":"system:ping","params":' + b"[" * 100_000
    payload += b"]" * 100_000 + b"}"
    client.send_raw(HEADER.pack(len(payload)) + payload)
    reply = client.read_message(timeout=5)
    assert reply["error"]["data"]["code"] == "invalid_request"
    assert "nested" in reply["error"]["data"]["message"]
    with pytest.raises(UnavailableError):
        client.read_message(timeout=5)
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as fresh:
        assert fresh.call(LIBRARY_LIST, c.LibraryListRequest()).libraries == []


def test_a_client_that_never_reads_is_dropped_before_memory_grows(
    backend: BackendProcess, client: BlockingClient
) -> None:
    for i in range(200):  # a listing of 200 libraries is a reply of about 40 KB
        client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name=f"资料库 library {i:03d}"))
    baseline = rss_mb(backend.pid)
    frame = encode_frame(request_message(7, LIBRARY_LIST.name, {}))
    peak = baseline
    dropped = False
    for _batch in range(60):  # up to 3,600 requests, ~140 MB of replies if nobody stopped it
        try:
            client.send_raw(frame * 60)
        except (UnavailableError, RuntimeError):
            dropped = True
            break
        time.sleep(0.15)
        peak = max(peak, rss_mb(backend.pid))
        if client._socket.state() != client._socket.LocalSocketState.ConnectedState:
            dropped = True
            break
    assert peak - baseline < FLOOD_RSS_MB / 2, (baseline, peak)
    assert rss_mb(backend.pid) < FLOOD_RSS_MB
    if not dropped:  # the drop shows once the buffered replies are read out
        with pytest.raises(UnavailableError):
            for _ in range(10_000):
                client.read_message(timeout=5)
    log = (Path(str(backend.popen.args[-1])) / "backend.log").read_text()
    assert "dropping client connection" in log and "left unread" in log
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as fresh:
        assert len(fresh.call(LIBRARY_LIST, c.LibraryListRequest()).libraries) == 200


def test_hostile_files_sync_within_the_memory_bound(
    backend: BackendProcess, client: BlockingClient, tmp_path: Path
) -> None:
    folder = tmp_path / "hostile"
    folder.mkdir()
    (folder / "bomb.docx").write_bytes(docx_bomb(300))
    (folder / "slow.docx").write_bytes(docx_bomb(3, varied=True))
    for name, data in malformed_docx().items():
        (folder / f"{name}.docx").write_bytes(data)
    (folder / "deep.html").write_bytes(b"<div>" * 200_000 + b"<p>x</p>")
    (folder / "wide.html").write_bytes(b"<p>row <b>x</b></p>" * 400_000)
    (folder / "noise.txt").write_bytes(bytes((i * 7919) % 127 + 1 for i in range(2_000_000)))
    (folder / "ok.md").write_text("# 正常\n\n正常的文件 normal file\n", encoding="utf-8")
    lib = client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="Hostile")).library
    started = time.monotonic()
    task = client.call(
        SOURCE_ADD,
        s.SourceAddRequest(library_id=lib.id, kind="folder", location=str(folder), watch=False),
    ).task_id
    peak = 0.0
    while time.monotonic() - started < 240:
        peak = max(peak, rss_mb(backend.pid))
        tasks = client.call(TASKS_LIST, TaskListRequest(limit=20)).tasks
        mine = next(t for t in tasks if t.id == task)
        if mine.state in FINISHED_STATES:
            break
        time.sleep(0.2)
    assert mine.state == "completed", mine
    assert mine.failed_documents >= 7 and mine.total == 11
    peak = max(peak, rss_mb(backend.pid, "VmHWM"))
    print(f"hostile sync: {time.monotonic() - started:.1f} s, backend peak RSS {peak:.0f} MB")
    assert peak < HOSTILE_SYNC_RSS_MB
