"""The package graph runs one way and has no cycles (DESIGN.md "One program model").

stubs (rebalance_guard) <- rebalance_lint <- rebalance_codemods <- rebalance_scan <- the
console script, which nobody imports. The graph is read from the source with ``ast`` (every
import statement, deferred and ``TYPE_CHECKING`` ones included), never by importing, so a
cycle hidden behind a function-level import still counts.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Lowest first: a module may import its own package and the packages before it.
LAYERS = ("rebalance_guard", "rebalance_lint", "rebalance_codemods", "rebalance_scan")


with (ROOT / "pyproject.toml").open("rb") as _file:
    _PYPROJECT = tomllib.load(_file)
#: The wheel's package folders (hatchling): each installs under its folder's name.
_PACKAGE_FOLDERS: list[str] = _PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]
CONSOLE_SCRIPT: str = _PYPROJECT["project"]["scripts"]["rebalance-guard"].partition(":")[0]


@dataclass(frozen=True)
class Graph:
    """Module name -> the project modules its import statements name."""

    edges: dict[str, set[str]]

    def cycles_within(self, package: str) -> list[list[str]]:
        """One cycle per strongly connected component of ``package``'s own modules."""
        inside = {m for m in self.edges if _in(m, package)}
        return [
            _a_cycle(component, self.edges)
            for component in _components(inside, self.edges)
            if len(component) > 1 or any(m in self.edges[m] for m in component)
        ]

    def acyclic_modules(self, package: str) -> set[str]:
        """The modules of ``package`` that lie on no cycle."""
        inside = {m for m in self.edges if _in(m, package)}
        components = _components(inside, self.edges)
        return {c[0] for c in components if len(c) == 1 and c[0] not in self.edges[c[0]]}


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _modules() -> dict[str, Path]:
    """Every module the distribution installs (the wheel's package folders)."""
    modules: dict[str, Path] = {}
    for folder in _PACKAGE_FOLDERS:
        directory = ROOT / folder
        for path in sorted(directory.rglob("*.py")):
            parts = path.relative_to(directory).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((directory.name, *parts))] = path
    return modules


def _imported_names(module: str, path: Path, is_package: bool) -> Iterator[str]:
    """Every dotted name an import statement of the module may load (longest first)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                yield f"{base}.{alias.name}"  # a submodule, or a name in ``base``
            yield base


def build_graph() -> Graph:
    modules = _modules()
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for name in _imported_names(module, path, path.name == "__init__.py"):
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        edges[module] = targets
    return Graph(edges)


def _components(nodes: set[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of the subgraph on ``nodes``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node] & nodes):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            found.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            visit(node)
    return found


def _a_cycle(component: list[str], edges: dict[str, set[str]]) -> list[str]:
    """A readable cycle through the component's first module: a -> b -> ... -> a."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        node = frontier.pop(0)
        for target in sorted(edges[node] & members):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                frontier.append(target)
    return component


def _layer(module: str) -> int:
    if _in(module, CONSOLE_SCRIPT):
        return len(LAYERS)
    return next(i for i, package in enumerate(LAYERS) if _in(module, package))


GRAPH = build_graph()


@pytest.mark.parametrize("package", LAYERS)
def test_no_import_cycle_inside_a_package(package: str) -> None:
    cycles = GRAPH.cycles_within(package)
    tangled = {m for m in GRAPH.edges if _in(m, package)} - GRAPH.acyclic_modules(package)
    assert cycles == [], "\n".join(" -> ".join(cycle) for cycle in cycles) + (
        f"\nmodules on a cycle: {sorted(tangled)}"
    )


def test_packages_import_only_the_layers_below() -> None:
    backwards = sorted(
        f"{module} -> {target}"
        for module, targets in GRAPH.edges.items()
        for target in targets
        if _layer(target) > _layer(module)
    )
    assert backwards == [], "imports against stubs <- lint <- codemods <- scan <- script"


def test_nobody_imports_the_console_script() -> None:
    assert CONSOLE_SCRIPT in GRAPH.edges, f"console script module {CONSOLE_SCRIPT} not found"
    importers = sorted(
        module
        for module, targets in GRAPH.edges.items()
        if any(_in(t, CONSOLE_SCRIPT) for t in targets) and not _in(module, CONSOLE_SCRIPT)
    )
    assert importers == []


def test_the_console_script_lives_outside_the_packages_it_drives() -> None:
    """A console script inside rebalance_lint makes the lint package import the others."""
    assert not any(_in(CONSOLE_SCRIPT, package) for package in LAYERS[:-1]), CONSOLE_SCRIPT


def test_the_graph_sees_real_edges() -> None:
    """The graph cannot be empty by accident: known imports appear in it."""
    assert "rebalance_guard._view" in GRAPH.edges["rebalance_guard.kafka_python"]
    assert "rebalance_lint.analysis.model" in GRAPH.edges["rebalance_lint.rules.rule"]
    synthetic = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert Graph(synthetic).cycles_within("a") == [["a.x", "a.y", "a.z", "a.x"]]
