"""Shape: an owner's callbacks that ignore their consumer argument and call the consumer the
owner stored and registered them on (REAL_WORLD.md: ``self._consumer.commit()`` in
``_on_revoke(self, _consumer, partitions)``, with ``self._consumer.subscribe(...,
on_revoke=self._on_revoke)``).

Once the owner is its own listener (:mod:`.owner_callbacks`), such a call would drive the
real consumer past the view it receives (KRB112). Where every registration of the owner's
callbacks is on ``self.<attr>``, a call of a method the view offers (as the view takes it)
on ``self.<attr>`` directly in a callback is a call on the consumer the callback was given:
it becomes a call on the callback's consumer parameter, which is the view. A method also
called elsewhere (kept as a wrapper, :mod:`.owner_callbacks`) is rewritten only when every
other call passes ``self.<attr>`` as its consumer (a shutdown path calling
``self._on_revoke(self._consumer, ...)``): there the parameter is that same consumer. Other
uses of ``self.<attr>`` (in a nested function that may run after the callback, not a call,
not offered by the view) are left as they are and KRB112 reports them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from rebalance_lint.analysis.confluent_callback import Function, _Callback
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, self_attr, self_class
from rebalance_lint.analysis.model import dotted
from rebalance_lint.analysis.shape import Shape

_LATER = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def registered_attr(calls: list[tuple[ast.Call, str]]) -> str | None:
    """``attr`` when every registration is ``<self>.<attr>.subscribe(...)`` in a method."""
    attrs: set[str] = set()
    for call, self_name in calls:
        receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
        head, _, attr = (receiver or "").partition(".")
        if head != self_name or not attr or "." in attr:
            return None
        attrs.add(attr)
    return attrs.pop() if len(attrs) == 1 else None


def stored_consumer_calls(
    callback: _Callback,
    attr: str,
    others: list[ast.AST],
    owner: ast.ClassDef,
    facts: FileFacts,
    ok: Callable[[ast.Call, str], bool],
) -> list[ast.Attribute]:
    """The ``self.<attr>`` receivers in ``callback`` that become its consumer parameter.

    ``ok(call, method)`` decides whether the view takes that call as written (one decision:
    :func:`.callback_takes_view._view_call_ok`); ``others``: the method's uses besides its
    registrations (each must pass ``self.<attr>`` as the consumer)."""
    fn = callback.function
    if callback.static or isinstance(fn, ast.Lambda) or len(fn.args.args) < 3:
        return []
    if not all(_passes_stored(node, attr, owner, facts) for node in others):
        return []
    own_self = fn.args.args[0].arg
    found: list[ast.Attribute] = []
    for node in _own_scope(fn):
        if not isinstance(node, ast.Attribute) or self_attr(node, own_self) != attr:
            continue
        method = facts.parent(node)
        call = facts.parent(method) if method is not None else None
        if (
            isinstance(method, ast.Attribute)
            and method.value is node
            and isinstance(call, ast.Call)
            and call.func is method
            and ok(call, method.attr)
        ):
            found.append(node)
    return found


def plan_stored_calls(found: list[ast.Attribute], callback: _Callback, plan: MigrationPlan) -> None:
    """Stage ``self.<attr>`` -> the callback's consumer parameter."""
    fn = callback.function
    assert not isinstance(fn, ast.Lambda)
    name = fn.args.args[1].arg
    for node in found:
        plan.edit(Edit("replace_with_name", span(node), value=name))


def _own_scope(fn: Function) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body that run while it runs (not nested defs or lambdas)."""
    stack: list[ast.AST] = list(reversed(fn.body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _LATER):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _passes_stored(node: ast.AST, attr: str, owner: ast.ClassDef, facts: FileFacts) -> bool:
    """``self.<method>(self.<attr>, ...)`` in a method of the same class."""
    call = facts.parent(node)
    if not (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and isinstance(call, ast.Call)
        and call.func is node
        and call.args
        and self_class(node.value, facts) is owner
    ):
        return False
    first = call.args[0]
    return isinstance(first, ast.Attribute) and self_attr(first, node.value.id) == attr


SHAPE = Shape(
    name="owner's stored consumer in its callbacks",
    planner="confluent",
    recognises=(
        "in an owner's callback, self.<attr>.<method>(...) where every registration is "
        "self.<attr>.subscribe(...) and the view offers the call as written"
    ),
    plan="replace_with_name (self.<attr> -> the callback's consumer parameter, the view)",
    fixtures=(
        "tests/codemods/test_owner_stored_consumer.py",
        "tests/codemods/fixtures/owner_ignores_consumer_argument.py",
    ),
)
