"""Resolve a name or attribute chain to the fully qualified name it was imported as.

Every import in the file counts wherever it appears (module level, functions, ``try``,
``if TYPE_CHECKING:``), plus simple module-level aliases ``Base = kafka.ConsumerRebalanceListener``.
A name bound to two different things is ambiguous and resolves to nothing (precision first).
"""

from __future__ import annotations

import ast

_AMBIGUOUS = ""


class ImportMap:
    """Local name -> qualified name, filled from Import/ImportFrom nodes."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._aliases: list[tuple[str, ast.expr]] = []
        #: Top-level packages imported absolutely (``import a.b``, ``from a.b import *`` too).
        self.packages: set[str] = set()
        #: ``from .mod import name``: local name -> (level, module, name); repository mode
        #: resolves these to modules of the same repository (they never name a client).
        self.relative: dict[str, tuple[int, str, str]] = {}

    def _bind(self, local: str, qualname: str) -> None:
        previous = self._names.get(local)
        self._names[local] = qualname if previous in (None, qualname) else _AMBIGUOUS

    def add_import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.packages.add(alias.name.partition(".")[0])
            if alias.asname:
                self._bind(alias.asname, alias.name)
            else:  # ``import a.b.c`` binds ``a``
                top = alias.name.partition(".")[0]
                self._bind(top, top)

    def add_import_from(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            for alias in node.names:  # relative imports cannot name a Kafka client
                if alias.name != "*":
                    local = alias.asname or alias.name
                    self.relative[local] = (node.level, node.module or "", alias.name)
            return
        self.packages.add(node.module.partition(".")[0])
        for alias in node.names:
            if alias.name != "*":
                self._bind(alias.asname or alias.name, f"{node.module}.{alias.name}")

    def add_alias(self, name: str, value: ast.expr) -> None:
        """``name = <attribute chain>`` at module level, resolved once imports are known."""
        self._aliases.append((name, value))

    def finish(self) -> None:
        """Resolve the pending aliases (after every import has been seen)."""
        for name, value in self._aliases:
            qualname = self.resolve(value)
            if qualname and name not in self._names:
                self._names[name] = qualname

    def resolve(self, expr: ast.expr) -> str | None:
        """``kafka.consumer.ConsumerRebalanceListener`` for an expression naming it, else None."""
        attrs: list[str] = []
        while isinstance(expr, ast.Attribute):  # iterative: attribute chains can be very deep
            attrs.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        base = self._names.get(expr.id)
        if not base:
            return None
        return ".".join([base, *reversed(attrs)])

    def qualname(self, name: str) -> str | None:
        """What a local name was imported as (``pkg.mod.Worker``), if anything."""
        return self._names.get(name) or None

    def imports_package(self, top: str) -> bool:
        """Does any import bind something from package ``top``?"""
        return any(q == top or q.startswith(top + ".") for q in self._names.values())
