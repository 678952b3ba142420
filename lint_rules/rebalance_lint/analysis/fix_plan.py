"""What the KRB103/KRB104 fix planner (:mod:`.fixes`) and its shapes share: a fix, the
fixes of a file, and the context one planning run keeps (:class:`FixContext`)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from rebalance_lint.analysis.collect import FunctionNode
from rebalance_lint.analysis.edits import Edit, MigrationPlan
from rebalance_lint.analysis.model import Analysis, Effect
from rebalance_lint.analysis.walk import breadth_first
from rebalance_lint.noqa import without_suppressed
from rebalance_lint.report import Finding

#: The codes with auto-fixes (the KRB2xx codes are fixed by the migration).
FIX_CODES = frozenset({"KRB103", "KRB104"})


#: A finding: (code, line, col) of the node it is reported at.
Key = tuple[str, int, int]


_REVOKE_WORD = re.compile(r"revoked|revocation|revoke")


def fix_key(code: str, node: ast.AST) -> Key:
    """The key of the finding of ``code`` reported at ``node``."""
    return code, getattr(node, "lineno", 1), getattr(node, "col_offset", 0)


@dataclass(frozen=True)
class Fix:
    """The edits that fix one finding. ``requires``: the fix is safe only together with one of
    these (a KRB103 fix in a revocation that also runs on loss needs the KRB104 fix that gives
    it a lost handler)."""

    edits: tuple[Edit, ...]
    requires: frozenset[Key] = frozenset()


@dataclass
class Fixes:
    """Every KRB103/KRB104 candidate of a file: its fix, or why it has none."""

    fixes: dict[Key, Fix] = field(default_factory=dict)
    refused: dict[Key, str] = field(default_factory=dict)

    def plan(self, keys: Iterable[Key]) -> MigrationPlan:
        """The edits that fix the findings ``keys`` (the reported ones: selected, not
        suppressed), each edit once; the others are the plan's manual sites, with why."""
        wanted = {key for key in keys if key[0] in FIX_CODES}
        alone = {key for key in wanted if key in self.fixes and not self.fixes[key].requires}
        chosen = sorted(
            alone
            | {key for key in wanted if key in self.fixes and self.fixes[key].requires & alone}
        )
        plan = MigrationPlan(sites=len(chosen))
        seen: set[Edit] = set()
        for key in chosen:
            for edit in self.fixes[key].edits:
                if edit not in seen:
                    seen.add(edit)
                    plan.edit(edit)
        for key in sorted(wanted - set(chosen)):
            reason = self.refused.get(key)
            if reason is None and key in self.fixes:
                reason = (
                    "needs the KRB104 fix of the same callback (its lost handler), which is "
                    "not selected or is suppressed"
                )
            if reason is not None:
                plan.refuse(key[1], f"{key[0]} not fixed: {reason}")
        return plan


def _reached(effect: Effect) -> str:
    hops = " -> ".join(hop.text for hop in effect.via)
    line = getattr(effect.node, "lineno", 0)
    where = f"{effect.path}:{line}" if effect.path else f"line {line}"
    return (
        f"the commit is reached through {hops} ({where}), which other code may call too; "
        f"give the callback its own copy of {effect.via[-1].text.partition('(')[0]}() and "
        "change the copy by hand"
    )


def _names(expr: ast.expr, name: str, method: bool = False) -> bool:
    """``expr`` is ``name`` or ``<something>.name`` (a method: ``self.name``)."""
    if isinstance(expr, ast.Name):
        return expr.id == name and not method
    if isinstance(expr, ast.Attribute):
        return expr.attr == name and (not method or isinstance(expr.value, ast.Name))
    return False


def _base_name(base: ast.expr) -> str | None:
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


def _own_methods(cls: ast.ClassDef) -> dict[str, FunctionNode]:
    return {
        stmt.name: stmt
        for stmt in cls.body
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    }


def _identifiers(tree: ast.AST) -> Iterator[str]:
    """Every name the file binds or mentions (a new definition must not clash with one)."""
    for node in breadth_first(tree):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.arg):
            yield node.arg
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).partition(".")[0]
        elif isinstance(node, ast.keyword) and node.arg:
            yield node.arg
        elif isinstance(node, ast.Global | ast.Nonlocal):
            yield from node.names


class FixContext:
    """What the fix shapes share while one file's fixes are planned: the model, the fixes so
    far, and a few facts computed once (the file's names and nodes, its subclasses)."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.fixes = Fixes()
        self._names: set[str] | None = None
        self._nodes: set[int] | None = None
        self.lost: dict[int, tuple[Edit, ...] | str] = {}

    def unsuppressed(self, keys: set[Key]) -> list[Key]:
        """The findings ``keys`` that no ``# noqa`` comment of the file suppresses."""
        found = [Finding(line, col, code, "", True) for code, line, col in keys]
        return [(f.code, f.line, f.col) for f in without_suppressed(found, self.analysis.text)]

    def tree_nodes(self) -> set[int]:
        """The ids of the file's nodes (constants and operators left out)."""
        if self._nodes is None:
            assert self.analysis.tree is not None
            self._nodes = {id(node) for node in breadth_first(self.analysis.tree)}
        return self._nodes

    def fresh_name(self, revoke: str) -> str:
        """A name for ``revoke``'s lost twin that nothing in the file uses yet."""
        if self._names is None:
            assert self.analysis.tree is not None
            self._names = set(_identifiers(self.analysis.tree))
        base, count = _REVOKE_WORD.subn("lost", revoke, count=1)
        if not count:
            base = "_on_lost" if revoke.startswith("_") else "on_lost"
        name, n = base, 1
        while name in self._names:
            n += 1
            name = f"{base}_{n}"
        self._names.add(name)
        return name

    def subclasses(self, cls: ast.ClassDef) -> list[ast.ClassDef]:
        """Classes of the file deriving from ``cls`` by name, directly or not (conservative:
        any class of that name counts)."""
        assert self.analysis.tree is not None
        classes = [n for n in breadth_first(self.analysis.tree) if isinstance(n, ast.ClassDef)]
        names = {cls.name}
        found: list[ast.ClassDef] = []
        changed = True
        while changed:
            changed = False
            for other in classes:
                if other is cls or other in found:
                    continue
                if any(_base_name(base) in names for base in other.bases):
                    found.append(other)
                    names.add(other.name)
                    changed = True
        return found
