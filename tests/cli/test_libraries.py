"""`goodbuddy-kb library …` as a user runs it: a real process, a real backend, real output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goodbuddy_kb.bridge.client import BlockingClient
from goodbuddy_kb.bridge.launcher import BackendProcess
from goodbuddy_kb.contracts.library import LibraryListRequest
from goodbuddy_kb.contracts.methods import LIBRARY_LIST
from tests.cli.runner import run

pytestmark = pytest.mark.integration


def test_library_commands_round_trip(data_dir: Path) -> None:
    created = run(data_dir, "library", "create", "项目笔记", "--json")
    assert created.returncode == 0, created.stderr
    lib = json.loads(created.stdout)
    assert lib["name"] == "项目笔记" and len(lib["id"]) == 32

    listed = run(data_dir, "library", "list", "--json", env_dir=True)
    assert [x["id"] for x in json.loads(listed.stdout)] == [lib["id"]]

    renamed = run(data_dir, "library", "rename", "项目笔记", "Project notes")
    assert renamed.returncode == 0 and "Project notes" in renamed.stdout

    refused = run(data_dir, "library", "delete", lib["id"])
    assert refused.returncode != 0 and "--yes" in refused.stderr
    deleted = run(data_dir, "library", "delete", "project notes", "--yes")
    assert deleted.returncode == 0 and "original files" in deleted.stdout
    assert run(data_dir, "library", "list").stdout.strip() == "no libraries yet"


def test_errors_are_clear_and_exit_non_zero(data_dir: Path) -> None:
    run(data_dir, "library", "create", "Twin")
    dup = run(data_dir, "library", "create", "twin", "--json")
    assert dup.returncode == 1
    assert json.loads(dup.stdout)["error"]["code"] == "conflict"
    assert "already exists" in dup.stderr
    missing = run(data_dir, "library", "rename", "nope", "x")
    assert missing.returncode == 1 and "not_found" in missing.stderr
    too_long = run(data_dir, "library", "create", "x" * 101)
    assert too_long.returncode == 1 and "name" in too_long.stderr


def test_cli_attaches_to_a_running_backend(data_dir: Path, backend: BackendProcess) -> None:
    created = run(data_dir, "library", "create", "Attached", "--json")
    assert created.returncode == 0, created.stderr
    assert backend.alive(), "the CLI neither replaced nor stopped the serving backend"
    with BlockingClient(backend.endpoint.server_name, backend.endpoint.secret).open() as client:
        names = [x.name for x in client.call(LIBRARY_LIST, LibraryListRequest()).libraries]
    assert names == ["Attached"]
