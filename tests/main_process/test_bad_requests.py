"""Absurd request values are clear `invalid_request` errors, never internal ones (issue 19)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from goodbuddy_kb.contracts.methods import DOCUMENTS_LIST, LIBRARY_CREATE, SOURCE_ADD, SOURCE_LIST
from goodbuddy_kb.main_process.dispatcher import Dispatcher
from tests.dispatch import call, fail


@pytest.fixture
def library_id(dispatcher: Dispatcher) -> str:
    return str(call(dispatcher, LIBRARY_CREATE.name, {"name": "Bad"})["library"]["id"])


@pytest.mark.parametrize("offset", [10**30, 2**63, 10**9 + 1])
def test_a_huge_offset_is_invalid_request(
    dispatcher: Dispatcher, library_id: str, offset: int
) -> None:
    error = fail(dispatcher, DOCUMENTS_LIST.name, {"libraryId": library_id, "offset": offset})
    assert error["code"] == "invalid_request"
    assert error["details"]["fields"][0]["field"] == "offset"


def test_a_megabyte_library_name_is_refused_with_the_real_limit(dispatcher: Dispatcher) -> None:
    error = fail(dispatcher, LIBRARY_CREATE.name, {"name": "名" * 1_000_000})
    assert error["code"] == "invalid_request"
    assert "at most 100 characters" in error["details"]["fields"][0]["problem"]
    assert "400" not in error["message"]


def loop(tmp_path: Path) -> str:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    return str(tmp_path / "a" / "x")


@pytest.mark.parametrize(
    "location",
    [
        pytest.param(lambda t: str(t) + "/bad\x00name", id="nul"),
        pytest.param(lambda t: str(t) + "/" + "n" * 4_000, id="long-name"),
        pytest.param(lambda t: str(t) + "/" + "/".join(["d" * 200] * 19), id="long-path"),
        pytest.param(
            loop,
            id="link-loop",
            marks=pytest.mark.skipif(sys.platform == "win32", reason="POSIX links"),
        ),
        pytest.param(lambda t: "   ", id="blank"),
    ],
)
def test_unusable_source_paths_are_invalid_request(
    dispatcher: Dispatcher, library_id: str, tmp_path: Path, location: object
) -> None:
    path = location(tmp_path)  # type: ignore[operator]
    error = fail(
        dispatcher,
        SOURCE_ADD.name,
        {"libraryId": library_id, "kind": "folder", "location": path, "watch": False},
    )
    assert error["code"] == "invalid_request", error
    assert call(dispatcher, SOURCE_LIST.name, {"libraryId": library_id})["sources"] == []


@pytest.mark.integration
def test_cli_source_add_with_an_empty_path_imports_nothing(data_dir: Path, tmp_path: Path) -> None:
    from tests.cli.runner import run

    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "private.md").write_text("not to be imported", encoding="utf-8")
    assert run(data_dir, "library", "create", "L").returncode == 0
    here = os.getcwd()
    os.chdir(cwd)
    try:
        result = run(data_dir, "source", "add", "L", "")
    finally:
        os.chdir(here)
    assert result.returncode != 0 and "required" in result.stderr
    assert run(data_dir, "source", "list", "L").stdout.strip() in ("", "no sources yet")
