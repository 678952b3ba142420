"""Shape: which base of a legacy listener class the migration rebases. Usually the only one
(``class Flush(ConsumerRebalanceListener)``); also the client's listener base among others,
a mixin listener (``class SubscribeCommand(AbstractCommand, ConsumerRebalanceListener)``
registering ``listener=self``): only that base becomes ``RebalanceListener``, the others
and their order stay.

Why that is safe: the KIP-1306 ``RebalanceListener`` of each client is a plain class with no
metaclass, no ``__init__`` and no state, defining only the three callbacks (no-ops, lost
defaulting to revoked) and ``callback_logging``. The clients' own bases define the same
callbacks (aiokafka's also makes the class an ``abc.ABC``). So the method resolution order
of everything else is unchanged; a metaclass of another base no longer has to agree with
``ABCMeta`` (it could only have been one deriving from it); and abstract methods of another
base are no longer enforced at instantiation, which only lets through what raised before.
Refused: a class keyword (a metaclass: its interplay with the new base is not known), the
client's base named twice, another base defining ``callback_logging`` (the guard reads it),
and a class registered as a virtual subclass (``Cls.register(...)`` needs ``ABCMeta``).
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.clients import client_listener_base
from rebalance_lint.analysis.migration_facts import FileFacts, methods_of
from rebalance_lint.analysis.shape import Shape


def rebased_base(cls: ast.ClassDef, facts: FileFacts) -> ast.expr | str:
    """The base of ``cls`` the migration renames to ``RebalanceListener``, or why none."""
    if cls.keywords:
        return (
            "a metaclass or class keywords; the codemod cannot rebase it safely; by hand, "
            "move its callbacks into a class deriving from rebalance_guard's RebalanceListener "
            "alone"
        )
    if len(cls.bases) == 1:
        return cls.bases[0]
    named = [
        base
        for base in cls.bases
        if (qualname := facts.imports.resolve(base)) and client_listener_base(qualname)
    ]
    if len(named) != 1:
        return (
            "other base classes; the codemod cannot rebase it safely; by hand, move its "
            "callbacks into a class deriving from rebalance_guard's RebalanceListener alone"
        )
    for base in cls.bases:
        bound = facts.bindings.binding(base) if isinstance(base, ast.Name) else None
        if isinstance(bound, ast.ClassDef) and "callback_logging" in _names(bound):
            return (
                f"its base {bound.name} defines callback_logging, which the rebalance_guard "
                "listener base also defines; rename it first"
            )
    if _registered_virtually(cls, facts):
        return (
            f"{cls.name}.register() makes virtual subclasses, which needs the ABCMeta of the "
            "client's base; drop that use first"
        )
    return named[0]


def _names(cls: ast.ClassDef) -> set[str]:
    """What the class body binds: its methods and its assigned attributes."""
    found = set(methods_of(cls))
    for stmt in cls.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else []
        if isinstance(stmt, ast.AnnAssign):
            targets = [stmt.target]
        found |= {t.id for t in targets if isinstance(t, ast.Name)}
    return found


def _registered_virtually(cls: ast.ClassDef, facts: FileFacts) -> bool:
    refs = facts.bindings.references(cls, cls.name) or []
    for ref in refs:
        method = facts.parent(ref)
        if isinstance(method, ast.Attribute) and method.attr == "register":
            return True
    return False


SHAPE = Shape(
    name="listener bases",
    planner="listeners",
    recognises=(
        "a legacy listener class's bases: the client's listener base alone, or among other "
        "bases (a mixin listener)"
    ),
    plan="rename_base (only the client's listener base)",
    fixtures=(
        "tests/codemods/test_listener_bases.py",
        "tests/codemods/fixtures/listener_mixin.py",
    ),
)
