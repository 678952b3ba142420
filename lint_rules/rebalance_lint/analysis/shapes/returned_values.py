"""Shape: a legacy listener's callback that returns a value (``return self.flush()``,
REAL_WORLD.md: a plain ``def`` revoke returning the consumer's commit coroutine).

What the client does with the value decides the rewrite. kafka-python ignores it (a sync
method's, and an ``AsyncConsumerRebalanceListener``'s awaited one's), and so does aiokafka
for an ``async def``; a RebalanceListener method returns nothing: each ``return value``
becomes ``value`` as a statement (its side effects kept; a value without any, by
:func:`.migration_expressions.is_pure`, goes), followed by a bare ``return`` unless nothing
would run after it. aiokafka awaits what a plain ``def`` returns when it is a coroutine, and
rebalance_guard's adapter awaits whatever such a ``def`` returns: a call of one of the
client's coroutine methods on the consumer the callback becomes the view of (the view's is a
coroutine too) stays returned; a value that is never awaitable (a literal, a comparison, a
display) is dropped as above; anything else is refused.

Only where nothing uses the value: any other call of the method is one of the class's own
``self.<callback>(...)`` (:mod:`.direct_callback_calls` refuses the rest), and each is a
statement of its own or the value of a ``return`` this shape turns into a statement. A
generator callback, a ``return`` sharing its line, and a coroutine returned from an ``async
def`` without ``await`` (it never ran, KRB106) are refused."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_expressions import is_none, is_pure
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    containing_list,
    own_returns,
    statement_layout,
)
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.walk import is_generator

#: Values no ``await`` can take: what aiokafka ignored and the adapter would fail to await.
_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp, ast.DictComp)


def plan_returned_values(
    callbacks: dict[str, Function], client: ClientFacts, facts: FileFacts, plan: MigrationPlan
) -> str | None:
    """Why a callback's returned value stops the class's migration, or None after staging
    each ``return value`` the client ignores as a statement (``plan`` holds the class's
    other edits: the consumer's replacement by the view)."""
    dropped: list[tuple[ast.Return, Function]] = []
    for fn in callbacks.values():
        returns = [r for r in own_returns(fn) if r.value is not None and not is_none(r.value)]
        if not returns:
            continue
        if is_generator(fn):
            return _ignored(fn, returns[0])
        for returned in returns:
            assert returned.value is not None
            keep = _kept(fn, returned, client, plan)
            if isinstance(keep, str):
                return keep
            if keep:
                continue
            if statement_layout(returned, facts) != "own":
                return (
                    f"{fn.name} returns a value (line {returned.lineno}) on a line it shares "
                    "with other code; put that return on a line of its own first"
                )
            dropped.append((returned, fn))
    unreturned = {id(r) for r, _ in dropped}
    for returned, fn in dropped:
        for node in facts.index.attributes.get(fn.name, []):
            if not _value_unused(node, unreturned, facts):
                return (
                    f"{fn.name} returns a value (line {returned.lineno}), which the call at "
                    f"line {node.lineno} uses, and a RebalanceListener method returns nothing; "
                    "compute that value in a helper both call first"
                )
    for returned, fn in dropped:
        assert returned.value is not None
        action = "pure" if _pure(returned.value) else "statement"
        plan.edit(Edit("unreturn", span(returned), value=action, extra=_end(returned, fn, facts)))
    return None


def _kept(
    fn: Function, returned: ast.Return, client: ClientFacts, plan: MigrationPlan
) -> bool | str:
    """Whether ``return value`` stays (True), becomes a statement (False), or why neither."""
    value = returned.value
    assert value is not None
    call = value.value if isinstance(value, ast.Await) else value
    coroutine = _view_coroutine(call, client, plan)
    if isinstance(fn, ast.AsyncFunctionDef) or not client.async_callbacks:
        if coroutine and not isinstance(value, ast.Await):
            assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            return (
                f"{fn.name} returns consumer.{call.func.attr}() without await (line "
                f"{returned.lineno}), so the call never ran (KRB106); add the await first"
            )
        return False  # the client ignores what the method returns
    if coroutine:
        return True  # the client awaited it; the adapter awaits the view's coroutine
    if _never_awaitable(value):
        return False
    return (
        f"{fn.name} returns a value (line {returned.lineno}), which {client.name} awaits "
        "if it is a coroutine (the migrated listener would await it whatever it is); make "
        f"{fn.name} async def and await it, or drop the value, first"
    )


def _view_coroutine(call: ast.expr, client: ClientFacts, plan: MigrationPlan) -> bool:
    """``<consumer>.<method>(...)``, a coroutine method of the client, on an expression the
    plan replaces with the view (so it is the consumer the callback is given)."""
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in client.coroutine_methods
    ):
        return False
    receiver = span(call.func.value)
    return any(e.action == "replace_with_name" and e.target == receiver for e in plan.edits)


def _pure(value: ast.expr) -> bool:
    """A value that may go unevaluated (:func:`is_pure`) and that no other edit reaches (no
    attribute: the view's replacements are attributes and calls)."""
    return is_pure(value) and not any(isinstance(n, ast.Attribute) for n in ast.walk(value))


def _never_awaitable(value: ast.expr) -> bool:
    if isinstance(value, (ast.Constant, ast.JoinedStr, ast.Compare, *_DISPLAYS)):
        return True
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return True
    return isinstance(value, ast.BoolOp) and all(_never_awaitable(v) for v in value.values)


def _value_unused(node: ast.Attribute, unreturned: set[int], facts: FileFacts) -> bool:
    """``self.<callback>(...)`` whose value nothing reads: a statement of its own (awaited or
    not), or the value of a ``return`` that becomes a statement."""
    call = facts.parent(node)
    if not isinstance(call, ast.Call) or call.func is not node:
        return False
    parent = facts.parent(call)
    if isinstance(parent, ast.Await):
        parent = facts.parent(parent)
    return isinstance(parent, ast.Expr) or (
        isinstance(parent, ast.Return) and id(parent) in unreturned
    )


def _end(returned: ast.Return, fn: Function, facts: FileFacts) -> str:
    """``"last"`` when nothing in ``fn`` runs after ``returned``: each block from it up to
    ``fn`` ends with it and is an ``if``/``else``/``with`` body (a loop would run again)."""
    node: ast.AST = returned
    while True:
        owner = facts.parent(node)
        body = containing_list(owner, node) if owner is not None else None
        if not body or body[-1] is not node:
            return ""
        if owner is fn:
            return "last"
        if not isinstance(owner, ast.If | ast.With | ast.AsyncWith):
            return ""
        node = owner


def _ignored(fn: Function, returned: ast.Return) -> str:
    return (
        f"{fn.name} returns a value (line {returned.lineno}), which the client ignores and a "
        "RebalanceListener method may not; drop the return value first"
    )


SHAPE = Shape(
    name="callbacks returning a value",
    planner="listeners",
    recognises=(
        "return <value> in a legacy listener's callback, where no call of the method uses the value"
    ),
    plan=(
        "unreturn (the value as a statement, then return unless last; a pure value goes), "
        "or nothing (a coroutine of the view returned from an aiokafka def)"
    ),
    fixtures=(
        "tests/codemods/test_returned_values.py",
        "tests/codemods/fixtures/returned_values.py",
    ),
)
