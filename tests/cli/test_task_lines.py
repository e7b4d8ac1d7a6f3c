"""The CLI's account of a finished task as a user reads it: a graph extraction says what it
found (chunks read, entity and relation mentions, what the graph now holds), not "0 written"; counts of one read in the
singular ("1/1 document")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.runner import run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def test_graph_task_line_counts_what_was_written(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# 差旅\n\n差旅报销制度由财务部审批。财务部负责报销。\n", "utf-8")
    assert run(data_dir, "library", "create", "Notes").returncode == 0
    added = run(data_dir, "source", "add", "Notes", str(folder))
    assert added.returncode == 0, added.stderr
    assert "1/1 document " in added.stdout and "1/1 documents" not in added.stdout
    done = run(data_dir, "graph", "extract", "Notes", "--strategy", "local")
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("graph"))
    assert "written" not in line, line
    assert "1 chunk read" in line and "entity mention" in line, line
    # and what the graph holds after the run: mentions are not the graph
    assert "relation mention" in line and "the graph now holds 2 entities and" in line, line


def test_the_task_list_names_each_task_once_and_its_library(data_dir: Path, tmp_path: Path) -> None:
    """`tasks` said the kind twice ("graph  graph  completed") and never which library."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nalpha\n", "utf-8")
    assert run(data_dir, "library", "create", "Handbook").returncode == 0
    assert run(data_dir, "source", "add", "Handbook", str(folder)).returncode == 0
    every = run(data_dir, "tasks").stdout.splitlines()
    sync = next(x for x in every if "  sync " in x)
    assert "  Handbook  sync " in sync and "sync  sync" not in sync, sync
    own = run(data_dir, "tasks", "Handbook").stdout.splitlines()
    assert all("Handbook" not in x for x in own), "one library's list need not repeat it"
