"""The package layout that shows the architecture: no import cycle among the modules of
``src/goodbuddy_kb`` (``TYPE_CHECKING`` imports included), no module over 500 lines, at most six
modules at the root of ``ui/`` and the command line in its ``cli/`` package."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "goodbuddy_kb"
MAX_LINES = 500
MAX_UI_ROOT_MODULES = 6


def module_names(root: Path) -> dict[str, Path]:
    """Every module under ``root`` (a folder holding top-level packages) by dotted name."""
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a ``from`` statement names, its relative dots resolved against ``module``."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path, top: str) -> dict[str, set[str]]:
    """Edges from each module of the ``top`` package to the modules of it that it imports.

    Every ``import`` and ``from`` statement counts wherever it stands (``if TYPE_CHECKING:``
    blocks and function bodies too). ``from pkg import name`` is an edge to ``pkg.name`` when that
    is a module, else to ``pkg``."""
    modules = module_names(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        if name != top and not name.startswith(top + "."):
            continue
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(node, name, path.name == "__init__.py")
                for alias in node.names:
                    child = f"{source}.{alias.name}"
                    edges.add(child if child in modules else source)
        graph[name] = {e for e in edges if e in modules and e != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph.get(node, ())):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def describe(graph: dict[str, set[str]], component: list[str]) -> str:
    """One import loop through the component, e.g. ``a -> b -> a``, to say where to cut."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    node = start
    while True:
        succ = sorted(graph[node] & members)
        back = start if start in succ else None
        nxt = back or next((s for s in succ if s not in seen), succ[0])
        path.append(nxt)
        if nxt in seen:
            return " -> ".join(path[path.index(nxt) :])
        seen.add(nxt)
        node = nxt


def test_no_import_cycle() -> None:
    graph = import_graph(SRC, "goodbuddy_kb")
    found = [f"{describe(graph, c)}   (all of: {', '.join(c)})" for c in cycles(graph)]
    assert found == [], "import cycles:\n" + "\n".join(found)


def test_the_walker_sees_a_cycle_through_relative_and_type_checking_imports(
    tmp_path: Path,
) -> None:
    pkg = tmp_path / "top"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from . import b\n")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..sub.a import A\n"
    )
    (pkg / "c.py").write_text("from top.sub import a\nimport top.sub.b\n")
    graph = import_graph(tmp_path, "top")
    assert graph["top.sub.a"] == {"top.sub.b"} and graph["top.sub.b"] == {"top.sub.a"}
    assert graph["top.c"] == {"top.sub.a", "top.sub.b"}
    assert cycles(graph) == [["top.sub.a", "top.sub.b"]]
    assert describe(graph, ["top.sub.a", "top.sub.b"]) == "top.sub.a -> top.sub.b -> top.sub.a"


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_over_500_lines() -> None:
    long = {p.relative_to(PACKAGE).as_posix(): lines(p) for p in PACKAGE.rglob("*.py")}
    assert {name: n for name, n in long.items() if n > MAX_LINES} == {}


def test_ui_root_holds_at_most_six_modules() -> None:
    root = sorted(p.name for p in (PACKAGE / "ui").glob("*.py"))
    assert len(root) <= MAX_UI_ROOT_MODULES, root


def test_the_command_line_is_one_package() -> None:
    assert (PACKAGE / "cli" / "__init__.py").is_file()
    assert sorted(p.name for p in PACKAGE.glob("cli_*.py")) == []
