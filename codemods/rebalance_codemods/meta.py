"""Metadata lookups and a one-pass index of the nodes the planners care about."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import (
    Assignment,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)

PROVIDERS = (PositionProvider, ParentNodeProvider, ScopeProvider, QualifiedNameProvider)


class Meta:
    """Typed access to the metadata the planners use (resolved once per file)."""

    def __init__(self, get: Callable[..., Any]) -> None:
        self._get = get

    def line(self, node: cst.CSTNode) -> int:
        return int(self._get(PositionProvider, node).start.line)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        parent: cst.CSTNode | None = self._get(ParentNodeProvider, node, None)
        return parent

    def qualnames(self, node: cst.CSTNode) -> set[str]:
        return {q.name for q in self._get(QualifiedNameProvider, node, set())}

    def scope(self, node: cst.CSTNode) -> Scope | None:
        scope: Scope | None = self._get(ScopeProvider, node, None)
        return scope

    def binding(self, name: cst.Name) -> cst.CSTNode | None:
        """The one node that binds ``name`` where it is used, or None if not exactly one."""
        scope = self.scope(name)
        if scope is None:
            return None
        found = scope[name.value]
        if len(found) != 1:
            return None
        (assignment,) = found
        return assignment.node if isinstance(assignment, Assignment) else None

    def references(self, node: cst.CSTNode, name: str) -> list[cst.CSTNode] | None:
        """Every use of ``name`` bound by ``node`` (a class or a target), None if rebound."""
        scope = self.scope(node)
        if scope is None:
            return None
        found = scope.assignments[name]
        if len(found) != 1:
            return None
        return [access.node for access in next(iter(found)).references]

    def inside(self, node: cst.CSTNode, kind: type[cst.CSTNode]) -> bool:
        current = self.parent(node)
        while current is not None:
            if isinstance(current, kind):
                return True
            current = self.parent(current)
        return False


@dataclass
class Index:
    """Nodes collected in one walk: classes, calls, attributes, imported packages, names."""

    classes: list[cst.ClassDef] = field(default_factory=list)
    method_calls: dict[str, list[cst.Call]] = field(default_factory=dict)
    calls: list[cst.Call] = field(default_factory=list)
    attributes: dict[str, list[cst.Attribute]] = field(default_factory=dict)
    packages: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # every name the file binds or uses
    claimed: dict[str, str] = field(default_factory=dict)  # local name -> imported symbol


class _Indexer(cst.CSTVisitor):
    def __init__(self) -> None:
        self.index = Index()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.index.classes.append(node)

    def visit_Call(self, node: cst.Call) -> None:
        self.index.calls.append(node)
        if isinstance(node.func, cst.Attribute):
            self.index.method_calls.setdefault(node.func.attr.value, []).append(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.index.attributes.setdefault(node.attr.value, []).append(node)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            self.index.packages.add(_top(alias.name))
        return False  # ``import kafka.consumer`` uses no attribute named ``consumer``

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.module is not None and not node.relative:
            self.index.packages.add(_top(node.module))
        return False


def _top(name: cst.Attribute | cst.Name) -> str:
    while isinstance(name, cst.Attribute):
        name = name.value  # type: ignore[assignment]
    return name.value if isinstance(name, cst.Name) else ""


def build_index(module: cst.Module) -> Index:
    from rebalance_codemods.names import names_in

    indexer = _Indexer()
    module.visit(indexer)
    indexer.index.names = names_in(module)
    return indexer.index
