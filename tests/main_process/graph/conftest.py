"""Fixtures of the graph tests: ``kb``, a library of the travel and finance documents (modules
that need another library define their own ``kb``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goodbuddy_kb.contracts.methods import LIBRARY_CREATE, SOURCE_ADD
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from goodbuddy_kb.main_process.services import Services
from tests.dispatch import call
from tests.main_process.graph.helpers import FINANCE, TRAVEL, turn_off


@pytest.fixture
def kb(dispatcher: Dispatcher, services: Services, tmp_path: Path) -> str:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "travel.md").write_text(TRAVEL, encoding="utf-8")
    (folder / "finance.md").write_text(FINANCE, encoding="utf-8")
    library_id = call(dispatcher, LIBRARY_CREATE.name, {"name": "KB"})["library"]["id"]
    turn_off(dispatcher, library_id)
    call(
        dispatcher,
        SOURCE_ADD.name,
        {"libraryId": library_id, "kind": "folder", "location": str(folder), "watch": False},
    )
    services.tasks.wait_idle()
    return library_id
