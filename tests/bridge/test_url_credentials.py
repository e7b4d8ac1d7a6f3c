"""A web source added with a user name and password in its address: the page is fetched with them,
and they are never stored or shown (source list, document path, task, retrieval results)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

PAGE = "<html><head><title>内部手册</title></head><body><p>机房门禁卡在前台登记领取。</p></body></html>"


class _Handler(BaseHTTPRequestHandler):
    seen: list[str | None] = []  # noqa: RUF012 - one server per test

    def do_GET(self) -> None:
        _Handler.seen.append(self.headers.get("Authorization"))
        body = PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def site() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    _Handler.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "goodbuddy_kb", "--data-dir", str(data_dir), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_url_password_is_used_and_never_shown(data_dir: Path, site: int) -> None:
    password = "s3cret-Pa55"
    assert cli(data_dir, "library", "create", "Intranet").returncode == 0
    added = cli(
        data_dir, "source", "add", "Intranet", f"http://alice:{password}@127.0.0.1:{site}/manual"
    )
    assert added.returncode == 0, added.stderr
    expected = "Basic " + base64.b64encode(f"alice:{password}".encode()).decode()
    assert _Handler.seen and _Handler.seen[-1] == expected, "the page was fetched without them"

    outputs = [
        added.stdout,
        cli(data_dir, "--json", "source", "list", "Intranet").stdout,
        cli(data_dir, "--json", "documents", "Intranet").stdout,
        cli(data_dir, "--json", "tasks").stdout,
        cli(data_dir, "--json", "retrieve", "Intranet", "门禁卡在哪里领取").stdout,
    ]
    found = json.loads(outputs[-1])["results"]
    assert found and "门禁卡" in found[0]["snippet"]
    assert found[0]["documentPath"] == f"http://127.0.0.1:{site}/manual"
    for text in outputs:
        assert password not in text and "alice" not in text, text[:300]
    database = (data_dir / "goodbuddy-kb.sqlite3").read_bytes()
    assert password.encode() not in database

    resynced = cli(data_dir, "sync", "Intranet")  # re-fetching still has them
    assert resynced.returncode == 0, resynced.stderr
    assert _Handler.seen[-1] == expected
