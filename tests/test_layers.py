"""Import boundaries: contracts import neither Qt nor sqlite3; ui never imports main_process;
main_process never imports ui; the bridge and the MCP server never import main_process; the
evaluation library never imports the command line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.test_layout import SRC, cycles, import_graph

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "goodbuddy_kb"


def imported_modules(directory: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in directory.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        found[path.relative_to(directory).as_posix()] = names
    return found


def offenders(directory: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for file, names in imported_modules(PACKAGE / directory).items():  # file relative to it
        for name in names:
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                bad.append(f"{file} imports {name}")
    return bad


@pytest.mark.parametrize(
    ("directory", "forbidden"),
    [
        (
            "contracts",
            (
                "PySide6",
                "goodbuddy_kb.qt",
                "sqlite3",
                "goodbuddy_kb.main_process",
                "goodbuddy_kb.ui",
            ),
        ),
        ("ui", ("goodbuddy_kb.main_process", "sqlite3")),
        ("bridge", ("goodbuddy_kb.main_process", "goodbuddy_kb.ui", "sqlite3")),
        ("mcp_server", ("goodbuddy_kb.main_process", "goodbuddy_kb.ui", "sqlite3")),
        # the CLI may use the evaluation library, never the reverse
        ("evaluation", ("goodbuddy_kb.cli", "goodbuddy_kb.ui")),
        (
            "main_process",
            ("goodbuddy_kb.ui", "goodbuddy_kb.bridge", "PySide6.QtWidgets", "PySide6.QtGui"),
        ),
    ],
)
def test_layer_does_not_import(directory: str, forbidden: tuple[str, ...]) -> None:
    assert offenders(directory, forbidden) == []


def test_the_check_sees_a_violation(tmp_path: Path) -> None:
    """The scanner itself must notice an offending import, or the rules above prove nothing."""
    (tmp_path / "bad.py").write_text("import sqlite3\nfrom goodbuddy_kb.main_process import app\n")
    names = imported_modules(tmp_path)
    assert names == {"bad.py": {"sqlite3", "goodbuddy_kb.main_process"}}


def test_only_qt_module_imports_pyside() -> None:
    allowed = {"qt/__init__.py", "qt/widgets.py"}
    for file, names in imported_modules(PACKAGE).items():
        if any(n.startswith("PySide6") for n in names):
            assert file in allowed, f"{file} imports PySide6 directly"


def test_method_names_are_spelled_only_in_the_table() -> None:
    table = PACKAGE / "contracts" / "methods.py"
    for path in PACKAGE.rglob("*.py"):
        if path == table:
            continue
        text = path.read_text(encoding="utf-8")
        for name in ("knowledge:library:", "knowledge:settings:", "system:ping", "external:"):
            assert f'"{name}' not in text, f"{path} spells a method name"


def test_no_import_cycle_crosses_packages() -> None:
    # Importing a module imports the packages above it first, and a package's __init__ may
    # import its own modules (re-exports): a cycle through that and a second package breaks
    # whichever module a program imports first (storage.db needed the lexical tokenizers,
    # whose package imported the term statistics, which needed storage.db: importing storage.db
    # on its own failed, and the bundle's build warned). test_layout's walker does not follow
    # the packages above a module, so it did not see that cycle.
    graph = import_graph(SRC, "goodbuddy_kb")
    for name in list(graph):
        for target in list(graph[name]):
            parts = target.split(".")
            graph[name] |= {".".join(parts[:i]) for i in range(2, len(parts))} & graph.keys()
        graph[name].discard(name)
    crossing = []
    for component in cycles(graph):
        common = ".".join(
            p[0] for p in zip(*(m.split(".") for m in component), strict=False) if len(set(p)) == 1
        )
        if common not in component:
            crossing.append(component)
    assert not crossing, crossing
