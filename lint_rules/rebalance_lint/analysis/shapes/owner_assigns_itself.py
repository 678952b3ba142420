"""Shape: an owner's callback (un)assigning through the consumer the owner stored and
registered it on, ignoring its consumer argument (REAL_WORLD.md: ``self.consumer.assign(
partitions)`` in ``on_assign(self, con, partitions)``, cooperative ``self.consumer.
incremental_assign(partitions)``, with ``self.consumer.subscribe(..., on_assign=self.
on_assign)``).

Migrated, the adapter (un)assigns after the callback, so the call would (un)assign twice
(KRB101). Where ``self.<attr>`` is provably the consumer the callback was given, the call is
the callback's ``consumer.assign(partitions)`` and is planned exactly as that one
(:mod:`.assign_release`: a final assign becomes a seek per partition on the view, a release
is dropped). Provably: every registration of the owner's callbacks is on ``self.<attr>``
(:func:`.owner_stored_consumer.registered_attr`), and the file stores a value other than
``None`` into an attribute named ``<attr>`` exactly once, ``self.<attr> = value`` in a method
of the owner, outside any loop (no other store, no ``setattr`` of it, no method or property
of that name in the owner), so the attribute never holds another consumer. A method also
called elsewhere keeps its body (:mod:`.owner_callbacks`) and stays refused."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import _ASSIGNS, _UNASSIGNS, _Callback
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_expressions import is_none
from rebalance_lint.analysis.migration_facts import FileFacts, self_attr, self_class
from rebalance_lint.analysis.model import dotted
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.assign_release import _plan_final, at_line
from rebalance_lint.analysis.shapes.callback_takes_view import _assigns_itself
from rebalance_lint.analysis.shapes.owner_stored_consumer import registered_attr

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.comprehension)


def plan_owner_assigns(
    callback: _Callback,
    calls: list[tuple[ast.Call, str]],
    owner: ast.ClassDef,
    facts: FileFacts,
    plan: MigrationPlan,
    *,
    rewrite: bool,
) -> str | None:
    """Why ``callback`` cannot (un)assign through the owner's registered consumer (None when
    it does not, or when its calls are staged as the view's: ``rewrite`` is False for a
    method kept for its other callers). ``calls``: the registrations, (call, the owner's
    name there)."""
    fn = callback.function
    if callback.static or isinstance(fn, ast.Lambda) or not fn.args.args:
        return None
    own_self = fn.args.args[0].arg
    reason = None
    for call, self_name in calls:
        assert isinstance(call.func, ast.Attribute)
        receiver = dotted(call.func.value)
        if receiver is not None and receiver.startswith(self_name + "."):
            reason = _assigns_itself(callback, own_self + receiver[len(self_name) :], facts)
            if reason is not None:
                break
    attr = registered_attr(calls)
    if reason is None or not rewrite or attr is None or not _bound_once(attr, owner, facts):
        return reason
    consumer, partitions = fn.args.args[1:3]
    for node in ast.walk(fn):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _ASSIGNS | _UNASSIGNS
            and self_attr(node.func.value, own_self) == attr
        ):
            continue
        name = node.func.attr
        why = _plan_final(callback, node, name, partitions.arg, facts, plan)
        if why is not None:  # assign_release's reason, naming the call as written
            why = why.replace(f"consumer.{name}()", f"{own_self}.{attr}.{name}()", 1)
            return at_line(why, node.lineno)
        if name in _ASSIGNS:  # the seek loop seeks on the view, the callback's consumer
            plan.edit(Edit("replace_with_name", span(node.func.value), value=consumer.arg))
    return None


def _bound_once(attr: str, owner: ast.ClassDef, facts: FileFacts) -> bool:
    """Whether ``self.<attr>`` holds one consumer for the owner's life: the file's one store
    of a value other than None into ``.<attr>`` is ``self.<attr> = value`` in a method of
    ``owner``, outside loops."""
    if any(
        isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == attr
        for stmt in owner.body
    ):
        return False  # a property or method: another object at each read
    if any(
        isinstance(call.func, ast.Name)
        and call.func.id in ("setattr", "delattr")
        and len(call.args) > 1
        and not (isinstance(call.args[1], ast.Constant) and call.args[1].value != attr)
        for call in facts.index.calls
    ):
        return False
    stores = [
        node
        for node in facts.index.attributes.get(attr, [])
        if isinstance(node.ctx, ast.Store) and not _stores_none(node, facts)
    ]
    if len(stores) != 1:
        return False
    target = stores[0]
    statement = facts.parent(target)
    return (
        isinstance(statement, ast.Assign)
        and statement.targets == [target]
        and isinstance(target.value, ast.Name)
        and self_class(target.value, facts) is owner
        and not any(isinstance(a, _LOOPS) for a in _ancestors_in_function(statement, facts))
    )


def _stores_none(target: ast.Attribute, facts: FileFacts) -> bool:
    """``<x>.<attr> = None`` (any chain of ``=`` targets) or ``<x>.<attr>: T = None``."""
    statement = facts.parent(target)
    if isinstance(statement, ast.Assign):
        return target in statement.targets and is_none(statement.value)
    if isinstance(statement, ast.AnnAssign):
        return statement.value is not None and is_none(statement.value)
    return False


def _ancestors_in_function(node: ast.AST, facts: FileFacts) -> list[ast.AST]:
    """``node``'s ancestors up to (not including) the function that holds it."""
    found: list[ast.AST] = []
    for ancestor in facts.bindings.ancestors(node):
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            break
        found.append(ancestor)
    return found


SHAPE = Shape(
    name="owner's callbacks (un)assigning on its stored consumer",
    planner="confluent",
    recognises=(
        "in an owner's callback, self.<attr>.assign/incremental_assign/unassign/"
        "incremental_unassign where every registration is self.<attr>.subscribe(...) and "
        "self.<attr> is bound to a consumer once"
    ),
    plan="replace_with_name (self.<attr> -> the view) + seek_loop / drop_final",
    fixtures=(
        "tests/codemods/test_owner_assigns_itself.py",
        "tests/codemods/fixtures/owner_assigns_itself.py",
    ),
)
