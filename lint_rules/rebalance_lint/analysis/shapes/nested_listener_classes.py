"""Shape: a listener class nested in another class and created through an attribute
(REAL_WORLD.md: ``listener=self.RebalanceListener(worker_id)``): the planner cannot follow the
creation, so it is refused with the step that makes it followable."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def created_through_attribute(cls: ast.ClassDef, facts: FileFacts) -> str | None:
    """Why ``cls`` cannot be followed to its creations: it is created as ``<x>.Cls(...)``."""
    for node in facts.index.attributes.get(cls.name, []):
        call = facts.parent(node)
        if isinstance(call, ast.Call) and call.func is node:  # self.Listener(...)
            return (
                f"it is created through an attribute, {ast.unparse(node)}(...) at line "
                f"{node.lineno}, which the codemod cannot follow; move the class to module "
                "level and create it by its name there first"
            )
    return None


SHAPE = Shape(
    name="nested listener classes",
    planner="listeners",
    recognises="a call of an attribute named like a listener class of the file (self.Cls(...))",
    plan="refusal",
    fixtures=("tests/codemods/test_refusals.py",),
)
