"""Shape: a callback's consumer used other than by calling its methods (stored, passed to a
function that is not a helper taking the view, used as a value): the refusal and its next
step, for both planners."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def consumer_escape_step(use: ast.AST, facts: FileFacts) -> str:
    """The next step for a callback whose consumer is used other than by calling a method:
    what the use is, and how to make the callback migratable."""
    parent = facts.parent(use)
    if isinstance(parent, ast.keyword):
        parent = facts.parent(parent)
    if isinstance(parent, ast.Call) and parent.func is not use:
        what = f"passes it to {ast.unparse(parent.func)}()"
        step = (
            "call the consumer's methods in the callback itself (inline that call, or make "
            "it return what the callback should do)"
        )
    elif isinstance(parent, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr):
        what = "stores it"
        step = "drop the stored reference (the view is valid only during the callback)"
    else:
        what = "uses it as a value"
        step = "call only the consumer's methods there"
    return f"{what}; {step}, then run migrate again"


SHAPE = Shape(
    name="consumer used as a value",
    planner="shared",
    recognises=(
        "a use of the callback's consumer (parameter, injected attribute, closure or "
        "global) that is neither a method call, a display nor a helper taking the view"
    ),
    plan=("refusal"),
    fixtures=(
        "tests/codemods/test_refusals.py",
        "tests/codemods/test_consumer_helpers.py",
    ),
)
