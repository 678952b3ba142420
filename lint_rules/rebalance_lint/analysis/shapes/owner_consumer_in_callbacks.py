"""Shape: a migrated listener's callback calling a method on its owner's stored consumer
itself (REAL_WORLD.md's indirect injection: ``self.runner.consumer.pause(*assigned)``), where
:mod:`.listener_owners` proves the owner's ``self.<attr>`` is the consumer the listener is
registered on: the call goes to the callback's view instead (``consumer.pause(*assigned)``).

Only a method the view offers as written, called in a callback's own body (not in a nested
function, which may run after the callback); any other use of ``self.<owner>.<attr>`` keeps
the refusal of :mod:`.owner_method_takes_view`. What the owner's methods do with it is that
module's part; this one only adds the direct calls to what it rewrites.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, view_name
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef
Offered = Callable[[ast.Call, str], bool]
#: One direct use: ``self.<owner>.<attr>`` (the node replaced), its call, the callback.
Direct = tuple[ast.Attribute, ast.Call, Function]


def direct_use(
    node: ast.Attribute, inside: Mapping[ast.AST, Function], ok: Offered, facts: FileFacts
) -> Direct | None:
    """``node`` (``self.<owner>.<attr>``) as the receiver of a call of a method the view
    offers, in a callback's own body; None for any other use."""
    outer = facts.parent(node)
    call = facts.parent(outer) if outer is not None else None
    if not (
        isinstance(outer, ast.Attribute)
        and outer.value is node
        and isinstance(call, ast.Call)
        and call.func is outer
        and ok(call, outer.attr)
    ):
        return None
    fn = inside.get(call)
    return (node, call, fn) if fn is not None else None


def plan_direct_uses(directs: list[Direct], plan: MigrationPlan, rewritten: set[ast.AST]) -> None:
    """Each direct use's receiver becomes the callback's view (its migrated parameter)."""
    for node, call, fn in directs:
        view = view_name(fn)
        assert view is not None  # the class is migrated: each callback got its view
        plan.edit(Edit("replace_with_expression", span(node), value=view))
        rewritten.add(call)


SHAPE = Shape(
    name="owner's consumer called in callbacks",
    planner="listeners",
    recognises=(
        "self.<owner>.<attr>.<method>(...) in a migrated listener's callback, a method the "
        "view offers, where self.<owner>.<attr> is provably the registering consumer"
    ),
    plan="replace_with_expression (self.<owner>.<attr> -> the callback's view)",
    fixtures=(
        "tests/codemods/test_owner_method_takes_view.py::test_the_owners_consumer_called_in_a_callback_becomes_the_view",
    ),
)
