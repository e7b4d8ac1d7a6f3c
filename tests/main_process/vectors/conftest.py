"""Shared fixtures of the vector tests: a library synced from the chunking fixtures."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from goodbuddy_kb.main_process.cancel import CancelToken
from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.sync.engine import sync_source
from goodbuddy_kb.main_process.vectors import int8_file, int8_packed

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "chunking"


@pytest.fixture(autouse=True)
def no_rebuild_left_running() -> Iterator[None]:
    """A scan that started a background rebuild or packing of an int8 copy sees it finish in
    its test, and no packed copy outlives its test."""
    yield
    int8_file.wait_for_rebuilds()
    int8_packed.clear()


@pytest.fixture
def library(pool: ConnectionPool, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    for name in ("policy_zh.md", "manual_en.md"):
        (folder / name).write_bytes((FIXTURES / name).read_bytes())
    conn = pool.get()
    library_id = libraries.create(conn, "V").id
    sync_source(
        conn, sources.add(conn, library_id, "folder", str(folder), [], [], False), CancelToken()
    )
    return library_id
