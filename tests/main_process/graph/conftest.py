"""Fixtures of the graph tests: ``kb``, a library of the travel and finance documents (modules
that need another library define their own ``kb``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.main_process.graph.helpers import FINANCE, TRAVEL, folder_library


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (folder / "finance.md").write_text(FINANCE, encoding="utf-8")
    library_id = folder_library(dispatcher, folder)
    services.tasks.wait_idle()
    return library_id
