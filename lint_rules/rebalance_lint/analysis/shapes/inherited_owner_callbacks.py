"""Shape: a subclass registering a callback it inherits from a class of the same file
(``class Transactions(Messages)`` whose ``consume()`` calls ``subscribe(topics,
on_assign=self.on_assign)``, ``on_assign`` defined in ``Messages``, which may register it too).

The defining class becomes its own listener (the owner callbacks shape); the subclass inherits
its listener base and its renamed ``on_partitions_*`` methods, so its registration becomes
``subscribe(consumer, topics, self)`` as the defining class's own does. Only where that is the
same callback: each class from the subclass up to the defining one has exactly one base, a
class of this file, and none of them (the subclass included) binds the callback's name, a
listener method's name or ``callback_logging`` (it would override what the listener base or
the renamed method provides)."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: Names a class between the subclass and the defining class must not bind.
_LISTENER_NAMES = frozenset({*SUBSCRIBE_CALLBACKS.values(), "callback_logging"})


def defining_ancestor(cls: ast.ClassDef, name: str, facts: FileFacts) -> ast.ClassDef | None:
    """The class of this file ``cls`` inherits method ``name`` from through single in-file
    bases, where nothing on the way binds it or a listener name; None otherwise (``cls``
    defines it itself, or the chain leaves the file, forks or is shadowed)."""
    current = cls
    seen: set[ast.ClassDef] = set()
    while current not in seen:
        seen.add(current)
        bound = _names_bound(current)
        if name in bound:
            return current if current is not cls and _is_method(current, name) else None
        if bound & _LISTENER_NAMES or len(current.bases) != 1 or current.keywords:
            return None
        base = current.bases[0]
        parent = facts.bindings.binding(base) if isinstance(base, ast.Name) else None
        if not isinstance(parent, ast.ClassDef):
            return None
        current = parent
    return None


def _is_method(cls: ast.ClassDef, name: str) -> bool:
    return any(
        isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name
        for stmt in cls.body
    )


def _names_bound(cls: ast.ClassDef) -> set[str]:
    """Every name the class body binds (methods, assignments, nested classes, imports)."""
    found: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(stmt.name)
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.add(node.id)
            elif isinstance(node, ast.alias):
                found.add((node.asname or node.name).partition(".")[0])
    return found


SHAPE = Shape(
    name="inherited owner callbacks",
    planner="confluent",
    recognises=(
        "on_assign=self.<method> in a subclass that inherits the method from a class of the "
        "same file through single bases, nothing on the way overriding it or a listener name"
    ),
    plan="the defining class becomes the listener (owner callbacks); resubscribe with self",
    fixtures=(
        "tests/codemods/test_inherited_owner_callbacks.py",
        "tests/codemods/fixtures/inherited_owner_callbacks.py",
    ),
)
