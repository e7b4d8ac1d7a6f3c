"""ARCHITECTURE.md's layout tree names exactly the packages that exist, at the places they are."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "goodbuddy_kb"


def documented_tree(text: str) -> set[str]:
    section = text.split("## Layout", 1)[1]
    block = section.split("```", 2)[1]
    paths: list[str] = []
    found: set[str] = set()
    for line in block.splitlines():
        match = re.match(r"^( *)([a-z_0-9]+)/", line)
        if not match:
            continue
        depth = len(match.group(1)) // 2
        paths = [*paths[:depth], match.group(2)]
        found.add("/".join(paths))
    return found


def test_the_documented_tree_is_the_folder_tree() -> None:
    documented = documented_tree((ROOT / "ARCHITECTURE.md").read_text("utf-8"))
    actual = {
        "/".join(("goodbuddy_kb", *p.relative_to(PACKAGE).parts)).rstrip("/")
        for p in [PACKAGE, *PACKAGE.rglob("*")]
        if p.is_dir() and any(p.glob("*.py"))
    }
    assert documented == actual, (
        f"missing from ARCHITECTURE.md: {sorted(actual - documented)}; "
        f"no such package: {sorted(documented - actual)}"
    )


def test_the_reader_follows_nesting() -> None:
    text = "## Layout\n```\na/\n  b/   x\n    c/  y\n  d/\n```\n"
    assert documented_tree(text) == {"a", "a/b", "a/b/c", "a/d"}
