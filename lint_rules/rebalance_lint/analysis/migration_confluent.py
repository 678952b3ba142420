"""Plan the confluent-kafka migration: ``subscribe(on_assign=..., on_revoke=..., on_lost=...)``.

confluent's C consumer takes callbacks only in ``subscribe()``, so
``rebalance_guard.confluent_kafka`` registers a listener through its own
``subscribe(consumer, topics, listener)``. The callback functions become the methods of a
``RebalanceListener`` class defined where they were (same scope, so every name in their
bodies still means the same), with the consumer parameter now the view. In
``on_partitions_assigned`` a final ``consumer.assign(partitions)`` becomes a seek per
partition (the adapter assigns with the sought offsets); a final ``unassign()`` in a
revocation callback is dropped (the adapter unassigns); "final" means nothing else in the
callback can run after it (last statement, possibly inside trailing ``if``/``with``).
``on_lost=on_revoke`` needs no method: ``on_partitions_lost`` defaults to the revoke one.
A bare ``commit()`` becomes synchronous, since the view's ``commit()`` is (the fix for
KRB103). Anything else is refused.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from rebalance_guard._client_facts import CONFLUENT
from rebalance_guard._client_facts import SUBSCRIBE_CALLBACKS as CONFLUENT_CALLBACKS

from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import (
    FileFacts,
    argument_count,
    containing_list,
    find_arg,
    guard_name,
    has_star_args,
    is_dotted,
    is_none,
    names_in,
    statement_layout,
)

_ASSIGNS = {"assign", "incremental_assign"}
_UNASSIGNS = {"unassign", "incremental_unassign"}
Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class _Callback:
    keyword: str  # on_assign / on_revoke / on_lost
    function: Function


def plan_confluent(facts: FileFacts) -> MigrationPlan:
    """Every ``subscribe()`` with confluent callbacks, as edits or refusals."""
    plan = MigrationPlan()
    if CONFLUENT.package not in facts.index.packages:
        return plan
    taken = set(facts.index.names)
    for call in facts.index.method_calls.get("subscribe", []):
        values = [find_arg(call, kw, i + 1) for i, kw in enumerate(CONFLUENT_CALLBACKS)]
        if all(v is None or is_none(v) for v in values):
            continue  # no callback to move
        site = MigrationPlan()
        reason = _plan_site(call, values, facts, taken, site)
        if reason is None:
            plan.merge(site)
        else:
            plan.refuse(call.lineno, reason)
    return plan


def _plan_site(
    call: ast.Call,
    values: list[ast.expr | None],
    facts: FileFacts,
    taken: set[str],
    plan: MigrationPlan,
) -> str | None:
    assert isinstance(call.func, ast.Attribute)
    if not is_dotted(call.func.value):
        return "the consumer is not a plain name, so the codemod cannot pass it along"
    if has_star_args(call):
        return "subscribe() takes *args or **kwargs; the callbacks cannot be located safely"
    topics = find_arg(call, "topics", 0)
    used = {id(v) for v in values if v is not None} | {id(topics)}
    if topics is None or len(used) != argument_count(call):
        return "subscribe() has arguments the codemod does not know"
    callbacks: list[_Callback] = []
    for keyword, value in zip(CONFLUENT_CALLBACKS, values, strict=True):
        if value is None or is_none(value):
            continue  # no callback: confluent's default, as without the argument
        function = facts.bindings.binding(value) if isinstance(value, ast.Name) else None
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return f"{keyword}= is not a function defined in this file (lambda, method, partial)"
        if keyword == "on_lost" and any(
            cb.keyword == "on_revoke" and cb.function is function for cb in callbacks
        ):
            continue  # on_lost=on_revoke is what on_partitions_lost does by default
        callbacks.append(_Callback(keyword, function))
    for callback in callbacks:
        function = callback.function
        refs = facts.bindings.references(function, function.name)
        here = [r for r in refs or () if _argument_of(r, call, facts)]
        if refs is None or len(refs) != len(here):
            return (
                f"{function.name} is used elsewhere too; moving it into a listener class"
                " would break those uses"
            )
    block = _block_of(callbacks[0].function, facts)
    if any(_block_of(cb.function, facts) != block for cb in callbacks):
        return "the callbacks are defined in different blocks"
    for callback in callbacks:
        reason = _plan_callback(callback, facts, plan)
        if reason is not None:
            return reason
    listener = guard_name(facts, taken, CONFLUENT.guard_module, "RebalanceListener", plan)
    protocol = guard_name(facts, taken, CONFLUENT.guard_module, "RebalanceConsumer", plan)
    subscribe = guard_name(facts, taken, CONFLUENT.guard_module, "subscribe", plan)
    class_name = next(n for n in _class_names() if n not in taken)
    taken.add(class_name)
    names = tuple(
        (cb.function.name, CONFLUENT_CALLBACKS[cb.keyword], _self_name(cb.function))
        for cb in callbacks
    )
    plan.edit(
        Edit(
            "gather",
            span(callbacks[0].function),
            value=class_name,
            extra=listener,
            annotation=protocol,
            names=names,
        )
    )
    plan.edit(Edit("resubscribe", span(call), value=subscribe, extra=class_name))
    for callback in callbacks:
        annotation = callback.function.args.args[0].annotation
        if annotation is not None:
            plan.unused_imports.append(span(annotation))
    plan.sites += 1
    plan.planned.add(span(call))
    return None


def _self_name(function: Function) -> str:
    """What the method's ``self`` is called: a name nothing in the function uses already."""
    taken = names_in(function)
    return next(n for n in ("self", "listener", "_self") if n not in taken)


def _argument_of(ref: ast.AST, call: ast.Call, facts: FileFacts) -> bool:
    parent = facts.parent(ref)
    if isinstance(parent, ast.keyword):
        return facts.parent(parent) is call
    return parent is call and call.func is not ref


def _block_of(function: Function, facts: FileFacts) -> tuple[int, int]:
    """Which statement list holds ``function`` (``if`` and ``else`` bodies differ)."""
    parent = facts.parent(function)
    body = containing_list(parent, function) if parent is not None else None
    return id(parent), id(body)


def _class_names() -> list[str]:
    return ["RebalanceCallbacks", *(f"RebalanceCallbacks{i}" for i in range(2, 100))]


def _plan_callback(callback: _Callback, facts: FileFacts, plan: MigrationPlan) -> str | None:
    """Check one callback function; stage the rewrite of its final assign/unassign."""
    fn = callback.function
    label = fn.name
    args = fn.args
    if fn.decorator_list or isinstance(fn, ast.AsyncFunctionDef):
        return f"{label} is decorated or async"
    if (
        len(args.args) != 2
        or args.posonlyargs
        or args.kwonlyargs
        or args.kwarg
        or args.vararg
        or args.defaults
    ):
        return f"{label} does not take exactly (consumer, partitions)"
    consumer, partitions = args.args
    refs = facts.bindings.references(consumer, consumer.arg)
    part_refs = facts.bindings.references(partitions, partitions.arg)
    if refs is None or part_refs is None:
        return f"{label} rebinds its consumer or partitions parameter"
    for ref in refs:
        method = facts.parent(ref)
        call = facts.parent(method) if method is not None else None
        line = ref.lineno
        if not (
            isinstance(method, ast.Attribute)
            and method.value is ref
            and isinstance(call, ast.Call)
            and call.func is method
        ):
            return f"{label} uses the consumer other than to call a method (line {line})"
        name = method.attr
        if name in _ASSIGNS | _UNASSIGNS:
            reason = _plan_final(callback, call, name, partitions.arg, facts, plan)
            if reason is not None:
                return f"{reason} (line {line})"
        elif name not in CONFLUENT.view_methods:
            return (
                f"{label} calls consumer.{name}() (line {line}), which the rebalance view "
                f"does not offer (KIP-1306)"
            )
        elif name == "commit" and (call.args or any(kw.arg is None for kw in call.keywords)):
            return f"{label} passes commit() positional arguments (line {line})"
    return None


def _tail_statement(call: ast.Call, fn: Function, facts: FileFacts) -> ast.Expr | None:
    """The statement ``call`` forms, if nothing in ``fn`` can run after it: last in its block,
    inside nothing but ``if``/``elif``/``else``/``with`` that are last too."""
    statement = facts.parent(call)
    if not (isinstance(statement, ast.Expr) and statement_layout(statement, facts) == "own"):
        return None
    node: ast.AST = statement
    while True:
        owner = facts.parent(node)
        body = containing_list(owner, node) if owner is not None else None
        if not body or body[-1] is not node:
            return None
        if owner is fn:
            return statement
        if not isinstance(owner, ast.If | ast.With | ast.AsyncWith):
            return None
        node = owner


def _plan_final(
    callback: _Callback,
    call: ast.Call,
    name: str,
    partitions: str,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """A final ``assign(partitions)`` in on_assign, or ``unassign`` in a revocation."""
    last = _tail_statement(call, callback.function, facts)
    if last is None:
        return f"consumer.{name}() is not the last thing {callback.function.name} does"
    arg_ok = (
        len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Name)
        and call.args[0].id == partitions
    )
    if name in _ASSIGNS:
        if callback.keyword != "on_assign" or not arg_ok:
            return f"consumer.{name}() does not assign exactly the callback's partitions"
        loop_var = "partition" if partitions != "partition" else "tp"
        plan.edit(Edit("seek_loop", span(last), value=partitions, extra=loop_var))
        return None
    if callback.keyword == "on_assign" or (name == "incremental_unassign" and not arg_ok):
        return f"consumer.{name}() does not release exactly the callback's partitions"
    if name == "unassign" and (call.args or call.keywords):
        return "consumer.unassign() with arguments"
    plan.edit(Edit("drop_final", span(last)))
    return None
