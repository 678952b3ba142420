"""Shape: a callback that discards its consumer parameter (``del consumer``,
``_ = consumer``, ``_, _, _ = self, consumer, partitions``), the idioms that mark an argument
unused for a linter. The parameter becomes the view and the discard stays: it throws the view
away as it threw the consumer away."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def discarded(ref: ast.Name, callback: ast.AST, facts: FileFacts) -> bool:
    """Whether the parameter read ``ref`` only throws the consumer away: ``del`` of it, or
    the value bound to a throwaway ``_`` that ``callback`` never reads (``_`` read later
    would be the view after the callback, where the consumer was)."""
    parent = facts.parent(ref)
    if isinstance(parent, ast.Delete):
        return True
    if isinstance(parent, ast.Assign) and parent.value is ref:
        return all(_throwaway(t) for t in parent.targets) and not _reads_throwaway(callback)
    if not (isinstance(parent, ast.Tuple | ast.List) and isinstance(parent.ctx, ast.Load)):
        return False
    assign = facts.parent(parent)
    if not (isinstance(assign, ast.Assign) and assign.value is parent):
        return False
    if any(isinstance(element, ast.Starred) for element in parent.elts):
        return False
    index = next(i for i, element in enumerate(parent.elts) if element is ref)
    for target in assign.targets:
        if not (
            isinstance(target, ast.Tuple | ast.List)
            and len(target.elts) == len(parent.elts)
            and not any(isinstance(element, ast.Starred) for element in target.elts)
            and _throwaway(target.elts[index])
        ):
            return False
    return not _reads_throwaway(callback)


def _throwaway(target: ast.expr) -> bool:
    return isinstance(target, ast.Name) and target.id == "_"


def _reads_throwaway(callback: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Load)
        for node in ast.walk(callback)
    ) or any(
        isinstance(node, ast.Global | ast.Nonlocal) and "_" in node.names
        for node in ast.walk(callback)
    )


SHAPE = Shape(
    name="discarded consumer parameters",
    planner="confluent",
    recognises=(
        "a callback's consumer parameter deleted or assigned to a throwaway `_` (alone or "
        "in a tuple of throwaways) and `_` never read in the callback"
    ),
    plan=("none of its own: the discard stays and throws the view away"),
    fixtures=(
        "tests/codemods/test_discarded_consumer.py",
        "tests/codemods/fixtures/discarded_consumer.py",
    ),
)
