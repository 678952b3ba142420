"""Repository mode: where the other modules of a repository use a class of one module.

The migration planner may rewrite a listener class only if it can see every use of it
(:mod:`rebalance_lint.analysis.migration_repository` decides). This module finds them, with
the repository's own import linking (:class:`~rebalance_lint.analysis.program.Program`):
every name or attribute chain in another module that resolves to the class, classified by
what the code does with it (creates an instance, subclasses it, tests it with
``isinstance``, annotates with it, anything else), plus what hides a use (a star import, an
import nobody uses there, which may be a re-export, a module that cannot be parsed).

Only modules whose bytes contain the class's name are looked at (:func:`mentioning`): a use
must spell the name somewhere, so nothing else can hold one.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.migration_facts import bindings_of
from rebalance_lint.analysis.program import Program, Unit
from rebalance_lint.analysis.scopes import Bindings
from rebalance_lint.analysis.walk import breadth_first

#: ``creation``: ``Cls(...)`` (``node`` is the call); ``unreadable``: the module mentioning the
#: name cannot be parsed; ``star``: the name is used unbound under a ``from m import *``;
#: ``unused_import``: imported but not used in that module (a re-export, or dead).
ReferenceKind = Literal[
    "creation", "annotation", "subclass", "isinstance", "other", "unreadable", "star",
    "unused_import", "ambiguous",
]  # fmt: skip


@dataclass(frozen=True, eq=False)
class ClassReference:
    """One use of a class in another module."""

    path: str
    line: int
    kind: ReferenceKind
    node: ast.AST | None = None
    text: str = ""  # the code (or the reason a module cannot be read), for messages


def mentioning(sources: Mapping[str, bytes], names: Iterable[str]) -> dict[str, list[str]]:
    """``name -> paths`` of the files whose bytes contain ``name`` as a word."""
    wanted = sorted(set(names))
    out: dict[str, list[str]] = {name: [] for name in wanted}
    if not wanted:
        return out
    encoded = [(name, name.encode()) for name in wanted]
    words = {name: re.compile(rb"\b" + re.escape(raw) + rb"\b") for name, raw in encoded}
    for path, source in sources.items():
        for name, raw in encoded:  # a substring test first: far cheaper than a regex scan
            if raw in source and words[name].search(source):
                out[name].append(path)
    return out


class ReferenceFinder:
    """Finds the uses of classes across one repository's modules; each module is indexed
    once, however many classes are looked for (``mentions``: :func:`mentioning`)."""

    def __init__(self, program: Program, mentions: Mapping[str, list[str]]) -> None:
        self.program = program
        self.mentions = mentions
        self._modules: dict[str, _Module | None] = {}

    def find(self, defining: Unit, cls: ast.ClassDef | FunctionNode) -> list[ClassReference]:
        """Every use of ``cls`` (defined in ``defining``) in the other modules, in order (a
        module-level function's too: its calls are ``creation`` references)."""
        out: list[ClassReference] = []
        for path in sorted(set(self.mentions.get(cls.name, []))):
            if path == defining.path:
                continue  # the defining module's own uses are the single-file planner's
            module = self._module(path)
            if module is None:
                out.append(ClassReference(path, 0, "unreadable", text="it cannot be parsed"))
                continue
            out.extend(module.references(defining, cls))
        return out

    def _module(self, path: str) -> _Module | None:
        if path not in self._modules:
            unit = self.program.unit(path)
            self._modules[path] = _Module(unit) if unit is not None else None
        return self._modules[path]


class _Module:
    """One module's names, attribute chains and imports, indexed once."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        tree = unit.facts.module.node
        self.names: dict[str, list[ast.Name]] = {}
        self.attributes: dict[str, list[ast.Attribute]] = {}
        self.imports: dict[str, list[tuple[str, ast.ImportFrom]]] = {}  # name -> (local, node)
        self.star: ast.ImportFrom | None = None
        for node in breadth_first(tree):  # ast.walk's order
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.names.setdefault(node.id, []).append(node)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                self.attributes.setdefault(node.attr, []).append(node)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name == "*":
                        self.star = node
                    else:
                        local = alias.asname or alias.name
                        self.imports.setdefault(alias.name, []).append((local, node))

    @cached_property
    def bindings(self) -> Bindings:
        """The module's bindings, built only for a module that uses the name (most modules
        mentioning a listener class's name define one of their own)."""
        return bindings_of(self.unit.facts.module.node)  # type: ignore[arg-type]

    def references(self, defining: Unit, cls: ast.ClassDef | FunctionNode) -> list[ClassReference]:
        unit, scope = self.unit, self.unit.facts.module

        def resolves(expr: ast.expr) -> bool:
            found = unit.lookup(scope, expr)
            return found is not None and found[0] is defining and found[1] is cls

        imported = {
            local: node
            for local, node in self.imports.get(cls.name, [])
            if resolves(ast.Name(id=local))
        }
        out: list[ClassReference] = []
        used: set[str] = set()
        for local in imported:
            for name in self.names.get(local, []):
                binding = self.bindings.binding(name)
                if binding is None:
                    out.append(_ref(unit, name, "ambiguous"))
                elif isinstance(binding, ast.Import | ast.ImportFrom):
                    used.add(local)
                    out.append(_classify(unit, name, self.bindings))
        if self.star is not None and cls.name not in imported:
            for name in self.names.get(cls.name, []):
                if self.bindings.binding(name) is None:
                    out.append(_ref(unit, name, "star", ast.unparse(self.star)))
        for attribute in self.attributes.get(cls.name, []):
            if resolves(attribute):
                out.append(_classify(unit, attribute, self.bindings))
        for local, node in imported.items():
            if local not in used:
                out.append(_ref(unit, node, "unused_import", ast.unparse(node)))
        return sorted(out, key=lambda ref: ref.line)


def _ref(unit: Unit, node: ast.AST, kind: ReferenceKind, text: str = "") -> ClassReference:
    return ClassReference(unit.path, getattr(node, "lineno", 0), kind, node, text)


def _classify(unit: Unit, ref: ast.expr, bindings: Bindings) -> ClassReference:
    parent = bindings.parent.get(ref)
    if isinstance(parent, ast.Call) and parent.func is ref:
        starred = any(isinstance(a, ast.Starred) for a in parent.args) or any(
            kw.arg is None for kw in parent.keywords
        )
        if starred:
            return _ref(unit, parent, "other", "instantiated with *args or **kwargs")
        return _ref(unit, parent, "creation")
    if ref in bindings.in_annotation:
        return _ref(unit, ref, "annotation")
    if isinstance(parent, ast.ClassDef) and ref in parent.bases:
        return _ref(unit, ref, "subclass", f"class {parent.name}")
    holder = bindings.parent.get(parent) if isinstance(parent, ast.Tuple) else parent
    if (
        isinstance(holder, ast.Call)
        and isinstance(holder.func, ast.Name)
        and holder.func.id in {"isinstance", "issubclass"}
    ):
        return _ref(unit, ref, "isinstance", f"{holder.func.id}()")
    return _ref(unit, ref, "other", ast.unparse(parent) if isinstance(parent, ast.expr) else "")
