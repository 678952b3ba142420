"""Shape: a confluent owner's callbacks calling its own helper methods that use the consumer
it registered on (``on_revoke=self._on_revoke`` calling ``self._flush()``, which commits on
``self.consumer``; development 025, held_out_7 007/008, REAL_WORLD's order-events).

The owner becomes its listener (:mod:`.owner_callbacks`); without this, the helpers would go
on committing on the stored consumer during the callback, bypassing the view (KRB112: the
consumer's bare ``commit()`` is asynchronous, and on loss it still holds the lost
partitions). As for a listener's owner (:mod:`.owner_method_takes_view`, whose chain and
method rewrite this reuses), each helper reaching ``self.<attr>`` from a callback gets a
keyword-only ``consumer=None``, calls the view's methods on ``(self.<attr> if consumer is
None else consumer)``, and the callbacks pass their consumer argument (the view); other
callers pass nothing and keep the stored consumer.

Where that rewrite is not provable (a helper decorated, taking ``*args``, using the consumer
other than to call what the view offers, an owner base the codemod cannot see), nothing is
rewritten here and the migration stays as before; ``check`` then reports the bypass (KRB112)."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import ClientFacts

from rebalance_lint.analysis.confluent_callback import _Callback, _consumer_param
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    first_param,
    methods_of,
    self_attr,
    view_name,
)
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.helpers_take_view import offered_by_view
from rebalance_lint.analysis.shapes.owner_method_takes_view import (
    _awaited,
    _chain,
    _overridable,
    _plan_method,
    _reaching,
)
from rebalance_lint.analysis.shapes.owner_stored_consumer import _own_scope
from rebalance_lint.analysis.shapes.view_keywords import stage_view_keywords


def plan_owner_helpers(
    owner: ast.ClassDef,
    callbacks: list[_Callback],
    attr: str,
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
) -> None:
    """Stage the helpers taking the callbacks' views, when all of it is provable; else
    nothing (the migration as before)."""
    staged = MigrationPlan()
    if _plan(owner, callbacks, attr, client, facts, staged):
        plan.merge(staged)


def _plan(
    owner: ast.ClassDef,
    callbacks: list[_Callback],
    attr: str,
    client: ClientFacts,
    facts: FileFacts,
    plan: MigrationPlan,
) -> bool:
    own = methods_of(owner)
    reaching = _reaching(own, attr, facts)
    functions = {cb.function for cb in callbacks}
    hops: list[tuple[ast.Call, ast.FunctionDef | ast.AsyncFunctionDef, _Callback]] = []
    for callback in callbacks:
        function = callback.function
        if isinstance(function, ast.Lambda) or callback.static:
            continue
        me = first_param(function)
        if not _readable(_consumer_param(callback), facts):
            return False  # ``del consumer`` (unused): no view there to hand over
        for node in _own_scope(function):
            name = self_attr(node, me)
            if name not in reaching or own[name] in functions:
                continue
            call = facts.parent(node)
            if not (isinstance(call, ast.Call) and call.func is node):
                return False  # self._flush passed on, not called: no view to hand over
            hops.append((call, own[name], callback))
    chain = _chain({method for _, method, _ in hops}, own, reaching)
    if not chain or chain & functions or _overridable(owner, chain, facts) is not None:
        return False
    names: dict[ast.FunctionDef | ast.AsyncFunctionDef, str] = {}
    for method in chain:
        name = view_name(method)
        if name is None:
            return False
        names[method] = name
    ok = offered_by_view(client, facts)
    rewritten: set[ast.AST] = set()
    for method in chain:
        if _plan_method(method, names, attr, own, chain, ok, facts, plan, rewritten) is not None:
            return False
    for call, method, callback in hops:
        if isinstance(method, ast.AsyncFunctionDef) and not _awaited(call, facts):
            return False
        view = _consumer_param(callback).arg
        plan.edit(Edit("set_keyword", span(call), value=names[method], extra=view))
    stage_view_keywords(names, client, facts, plan)
    return True


def _readable(param: ast.arg, facts: FileFacts) -> bool:
    """Whether ``param`` holds the view wherever the callback reads it: bound only as the
    parameter, never deleted (``del consumer``, a way to mark it unused, was read as a use;
    handing it on after that raises UnboundLocalError; development 064)."""
    refs = facts.bindings.references(param, param.arg)
    return refs is not None and not any(isinstance(facts.parent(r), ast.Delete) for r in refs)


SHAPE = Shape(
    name="owner helper methods take the view",
    planner="confluent",
    recognises=(
        "callbacks of a confluent owner calling its own methods that use the consumer it "
        "registered on (self.<attr>), directly or through further methods"
    ),
    plan="keyword_param + replace_with_expression in the helpers, set_keyword at the calls",
    fixtures=(
        "tests/codemods/test_owner_helper_methods.py",
        "tests/codemods/fixtures/owner_helper_methods.py",
    ),
)
