"""Import boundaries: contracts import neither Qt nor sqlite3; ui never imports main_process;
main_process never imports ui; the bridge and the MCP server never import main_process; the
evaluation library never imports the command line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


def _module_imports() -> dict[str, set[str]]:
    """Each module's imports of the project's modules at import time (not inside functions
    or ``if TYPE_CHECKING:``), each with the packages above it that Python imports first."""
    root = PACKAGE.parent
    modules: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    targets.add(sub if sub in modules else node.module)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        deps: set[str] = set()
        for target in targets & modules.keys():
            parts = target.split(".")
            deps.update(".".join(parts[:i]) for i in range(2, len(parts) + 1))
        graph[name] = (deps & modules.keys()) - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start, edges_of_start in graph.items():
        if start in index:
            continue
        work = [(start, iter(sorted(edges_of_start)))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycle_crosses_packages() -> None:
    # A package may import its own modules and they it (its __init__ re-exports them); a cycle
    # through two packages breaks whichever module a program imports first (storage.db needed
    # the lexical tokenizers, whose term statistics needed storage.db: importing storage.db
    # on its own failed, and the bundle's build warned)
    crossing = []
    for component in _cycles(_module_imports()):
        common = ".".join(
            p[0] for p in zip(*(m.split(".") for m in component), strict=False) if len(set(p)) == 1
        )
        if common not in component:
            crossing.append(sorted(component))
    assert not crossing, crossing


def test_the_cycle_check_sees_a_cycle() -> None:
    graph = {"a": {"a.x"}, "a.x": {"b.y"}, "b": set(), "b.y": {"a.x"}, "a.z": {"a"}}
    assert _cycles(graph) == [{"a.x", "b.y"}]
