"""Shape: a listener's callback methods called directly, with the old arity
(REAL_WORLD.md: tests and wrappers calling ``listener.on_partitions_assigned([tp])``,
``self.on_partitions_revoked(self.assignment())`` after a manual assign).

Migrated, the methods take the view as a second argument. Where a callback of the class
calls another of its own callbacks through ``self`` (``self.on_partitions_revoked(lost)`` in
``on_partitions_lost``), the view is in scope: the call passes it along, by the target's
parameter name (``self.on_partitions_revoked(lost, consumer=consumer)``). Any other direct
call (from a test, a wrapper, another object, a nested function that may run after the view
expired) is refused: it would raise a TypeError, and the listener bases never get a
one-argument method (the type checker would then accept the old arity).
"""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CALLBACK_METHODS as CALLBACKS

from rebalance_lint.analysis.migration_facts import FileFacts, first_param, methods_of
from rebalance_lint.analysis.shape import Shape

Function = ast.FunctionDef | ast.AsyncFunctionDef
#: A call to pass the view along: (the call, the callback it calls, the callback calling it)
Passing = tuple[ast.Call, Function, Function]


def direct_calls(cls: ast.ClassDef, facts: FileFacts) -> tuple[str | None, list[Passing]]:
    """Why ``cls`` cannot change arity (any ``.on_partitions_*`` attribute of the file,
    whatever object it is read from, is a direct use of a callback), unless each is one of
    its callbacks calling another through ``self``: then those calls, to pass the view."""
    passing: list[Passing] = []
    for attr in CALLBACKS:
        for node in facts.index.attributes.get(attr, []):
            found = _through_self(node, cls, facts)
            if found is None:
                return _why_not(attr, node, facts), []
            passing.append(found)
    return None, passing


def _why_not(attr: str, node: ast.Attribute, facts: FileFacts) -> str:
    """The refusal for a direct call no view can be passed to, with why and the next step."""
    where = f"{attr} is called directly at line {node.lineno}, with one argument"
    receiver = ast.unparse(node.value)
    if receiver == "self":
        how = "on self, outside a callback of this class, where no view exists to pass"
    else:
        how = f"on {receiver}, which the codemod cannot tell from an instance of this class"
    return (
        f"{where} ({how}; migrated, its {attr} takes the view too, and in another module's "
        "test rebalance-guard migrate DIR drives it through the listener test harness); move "
        "that code into a helper method both call, or give the other object's method another "
        "name, first"
    )


def _through_self(node: ast.Attribute, cls: ast.ClassDef, facts: FileFacts) -> Passing | None:
    """``self.<callback>(partitions)`` in a callback of ``cls`` itself (not in a function
    nested in it), calling a callback ``cls`` defines."""
    methods = methods_of(cls)
    call = facts.parent(node)
    target = methods.get(node.attr)
    caller = next(  # the innermost scope that may run later: a def, a lambda, a generator
        (
            n
            for n in facts.bindings.ancestors(node)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.GeneratorExp)
        ),
        None,
    )
    if (
        isinstance(call, ast.Call)
        and call.func is node
        and len(call.args) == 1
        and not isinstance(call.args[0], ast.Starred)
        and not call.keywords
        and target is not None
        and isinstance(caller, ast.FunctionDef | ast.AsyncFunctionDef)
        and caller.name in CALLBACKS
        and methods.get(caller.name) is caller
        and isinstance(node.value, ast.Name)
        and node.value.id == first_param(caller)
    ):
        return call, target, caller
    return None


SHAPE = Shape(
    name="direct callback calls",
    planner="listeners",
    recognises=(
        "an attribute named on_partitions_assigned/revoked/lost anywhere in the file "
        "(FileIndex.attributes)"
    ),
    plan=(
        "set_keyword (the view, by the called method's parameter name) for a callback "
        "calling another of its class through self; else a refusal"
    ),
    fixtures=(
        "tests/codemods/test_refusals.py",
        "tests/codemods/test_direct_callback_calls.py",
    ),
)
