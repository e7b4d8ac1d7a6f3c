"""Fixtures for sync tests: a library with a folder source, in a migrated database."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.main_process.storage import libraries, sources
from goodbuddy_kb.main_process.storage.db import ConnectionPool
from goodbuddy_kb.main_process.storage.sources import SourceRow


@pytest.fixture
def library_id(pool: ConnectionPool) -> str:
    return libraries.create(pool.get(), "Sync").id


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "docs"
    path.mkdir()
    return path


@pytest.fixture
def folder_source(pool: ConnectionPool, library_id: str, folder: Path) -> SourceRow:
    return sources.add(pool.get(), library_id, "folder", str(folder), [], [], False)
