"""`goodbuddy-kb library expose LIB on|off`: a script can switch a library on for external AI
tools (before, only the window could), and `library list` says which are on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.runner import run

# The commands attach to the fixture's backend, as when the window is open (quicker than each
# starting its own; the round trip in test_libraries starts its own).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("backend")]


def test_expose_switches_external_access_and_list_shows_it(data_dir: Path) -> None:
    assert run(data_dir, "library", "create", "Handbook").returncode == 0
    assert run(data_dir, "library", "create", "Private notes").returncode == 0
    exposed = run(data_dir, "library", "expose", "handbook", "on")
    assert exposed.returncode == 0, exposed.stderr
    assert "external AI tools can now search “Handbook”" in exposed.stdout
    listed = run(data_dir, "library", "list").stdout
    handbook = next(line for line in listed.splitlines() if "Handbook" in line)
    private = next(line for line in listed.splitlines() if "Private notes" in line)
    assert "external AI tools: on" in handbook and "external" not in private
    as_json = json.loads(run(data_dir, "library", "list", "--json").stdout)
    assert {x["name"]: x["externalAccess"] for x in as_json} == {
        "Handbook": True,
        "Private notes": False,
    }
    assert run(data_dir, "library", "expose", "Handbook", "off").returncode == 0
    assert "external" not in run(data_dir, "library", "list").stdout
    wrong = run(data_dir, "library", "expose", "Handbook", "maybe")
    assert wrong.returncode != 0 and "invalid choice" in wrong.stderr
