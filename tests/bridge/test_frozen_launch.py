"""A frozen bundle (PyInstaller) has no Python to run ``-m`` with: the window and the command
line start the backend with the bundle's own executable, and the MCP panel's command names that
executable. A stand-in "bundle" executable (this interpreter running the ``goodbuddy-kb``
command, nothing else) makes the launcher take the frozen path with the real backend."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.launcher import open_session
from goodbuddy_kb.contracts import library as c
from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, LIBRARY_LIST
from goodbuddy_kb.mcp_server.config import server_command
from tests.mcp_server.raw import RawServer

pytestmark = pytest.mark.integration


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """sys.executable is the bundle's `goodbuddy-kb`, as in a frozen build; it takes only the
    command's own arguments (no ``-m``)."""
    executable = tmp_path / "bundle" / "goodbuddy-kb"
    executable.parent.mkdir()
    executable.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m goodbuddy_kb "$@"\n')
    executable.chmod(0o755)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(executable))
    return executable


def test_the_bundle_starts_its_own_backend(bundle: Path, data_dir: Path) -> None:
    session = open_session(data_dir)
    try:
        assert session.process is not None
        assert session.process.popen.args[:2] == [str(bundle), "backend"]  # type: ignore[index]
        session.client.call(LIBRARY_CREATE, c.LibraryCreateRequest(name="手册"))
        listed = session.client.call(LIBRARY_LIST, c.LibraryListRequest()).libraries
        assert [lib.name for lib in listed] == ["手册"]
    finally:
        session.close()


def test_the_mcp_command_runs_the_bundle(bundle: Path, data_dir: Path, tmp_path: Path) -> None:
    argv = server_command(data_dir)
    assert argv == [str(bundle), "mcp", "--data-dir", str(data_dir)]
    with open(tmp_path / "mcp-stderr.txt", "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
    server = RawServer(proc, tmp_path / "mcp-stderr.txt")
    try:
        server.handshake()
        server.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        tools = server.answer(2, timeout=60)["result"]["tools"]
        assert "knowledge_search" in {tool["name"] for tool in tools}
        server.close_stdin()
        assert server.wait() == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
