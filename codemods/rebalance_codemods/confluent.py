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

from dataclasses import dataclass

import libcst as cst

from rebalance_codemods.clients import CONFLUENT, CONFLUENT_CALLBACKS
from rebalance_codemods.meta import Index, Meta
from rebalance_codemods.names import guard_name, names_in
from rebalance_codemods.plan import Plan, Replacement
from rebalance_codemods.syntax import drop_statement, find_arg, has_star_args, is_dotted

_ASSIGNS = {"assign", "incremental_assign"}
_UNASSIGNS = {"unassign", "incremental_unassign"}


@dataclass(frozen=True)
class _Callback:
    keyword: str  # on_assign / on_revoke / on_lost
    function: cst.FunctionDef


def plan_confluent(module: cst.Module, meta: Meta, index: Index) -> Plan:
    """Every ``subscribe()`` with confluent callbacks, as edits or refusals."""
    plan = Plan()
    if CONFLUENT.package not in index.packages:
        return plan
    taken = set(index.names)
    for call in index.method_calls.get("subscribe", []):
        positions = [find_arg(call.args, kw, i + 1) for i, kw in enumerate(CONFLUENT_CALLBACKS)]
        if all(p is None or _is_none(call.args[p].value) for p in positions):
            continue  # no callback to move
        site = Plan()
        reason = _plan_site(call, positions, module, meta, taken, index.claimed, site)
        if reason is None:
            plan.merge(site)
        else:
            plan.refuse(meta.line(call), reason)
    return plan


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _plan_site(
    call: cst.Call,
    positions: list[int | None],
    module: cst.Module,
    meta: Meta,
    taken: set[str],
    claimed: dict[str, str],
    plan: Plan,
) -> str | None:
    assert isinstance(call.func, cst.Attribute)
    if not is_dotted(call.func.value):
        return "the consumer is not a plain name, so the codemod cannot pass it along"
    if has_star_args(call.args):
        return "subscribe() takes *args or **kwargs; the callbacks cannot be located safely"
    topics = find_arg(call.args, "topics", 0)
    used = {i for i in positions if i is not None} | {topics}
    if topics is None or len(used) != len(call.args):
        return "subscribe() has arguments the codemod does not know"
    callbacks: list[_Callback] = []
    for keyword, position in zip(CONFLUENT_CALLBACKS, positions, strict=True):
        if position is None:
            continue
        value = call.args[position].value
        if _is_none(value):
            continue  # no callback: confluent's default, as without the argument
        function = meta.binding(value) if isinstance(value, cst.Name) else None
        if not isinstance(function, cst.FunctionDef):
            return f"{keyword}= is not a function defined in this file (lambda, method, partial)"
        if keyword == "on_lost" and any(
            cb.keyword == "on_revoke" and cb.function is function for cb in callbacks
        ):
            continue  # on_lost=on_revoke is what on_partitions_lost does by default
        callbacks.append(_Callback(keyword, function))
    for callback in callbacks:
        function = callback.function
        refs = meta.references(function, function.name.value)
        here = [r for r in refs or () if meta.parent(meta.parent(r) or r) is call]
        if refs is None or len(refs) != len(here):
            return (
                f"{function.name.value} is used elsewhere too; moving it into a listener class"
                " would break those uses"
            )

    block = meta.parent(callbacks[0].function)
    if any(meta.parent(cb.function) is not block for cb in callbacks):
        return "the callbacks are defined in different blocks"
    for callback in callbacks:
        reason = _plan_callback(callback, meta, plan)
        if reason is not None:
            return reason
    scope = meta.scope(module)
    listener = guard_name(scope, taken, claimed, CONFLUENT.guard_module, "RebalanceListener", plan)
    protocol = guard_name(scope, taken, claimed, CONFLUENT.guard_module, "RebalanceConsumer", plan)
    subscribe = guard_name(scope, taken, claimed, CONFLUENT.guard_module, "subscribe", plan)
    class_name = next(n for n in _class_names() if n not in taken)
    taken.add(class_name)
    assert block is not None
    plan.edit(block, lambda node: _gather(node, callbacks, class_name, listener, protocol))
    plan.edit(call, lambda node: _resubscribe(node, subscribe, class_name))
    for callback in callbacks:
        annotation = callback.function.params.params[0].annotation
        if annotation is not None:
            plan.unused_import_nodes.append(annotation)
    plan.sites += 1
    return None


def _class_names() -> list[str]:
    return ["RebalanceCallbacks", *(f"RebalanceCallbacks{i}" for i in range(2, 100))]


def _plan_callback(callback: _Callback, meta: Meta, plan: Plan) -> str | None:
    """Check one callback function; stage the rewrite of its final assign/unassign."""
    fn = callback.function
    label = fn.name.value
    params = fn.params
    if fn.decorators or fn.asynchronous is not None:
        return f"{label} is decorated or async"
    if (
        len(params.params) != 2
        or params.posonly_params
        or params.kwonly_params
        or params.star_kwarg
        or params.star_arg != cst.MaybeSentinel.DEFAULT
        or any(p.default is not None for p in params.params)
    ):
        return f"{label} does not take exactly (consumer, partitions)"
    consumer, partitions = params.params
    refs = meta.references(consumer.name, consumer.name.value)
    part_refs = meta.references(partitions.name, partitions.name.value)
    if refs is None or part_refs is None:
        return f"{label} rebinds its consumer or partitions parameter"
    for ref in refs:
        method = meta.parent(ref)
        call = meta.parent(method) if method is not None else None
        line = meta.line(ref)
        if not (
            isinstance(method, cst.Attribute)
            and method.value is ref
            and isinstance(call, cst.Call)
            and call.func is method
        ):
            return f"{label} uses the consumer other than to call a method (line {line})"
        name = method.attr.value
        if name in _ASSIGNS | _UNASSIGNS:
            reason = _plan_final(callback, call, name, partitions.name.value, meta, plan)
            if reason is not None:
                return f"{reason} (line {line})"
        elif name not in CONFLUENT.view_methods:
            return (
                f"{label} calls consumer.{name}() (line {line}), which the rebalance view "
                f"does not offer (KIP-1306)"
            )
        elif name == "commit" and any(arg.keyword is None for arg in call.args):
            return f"{label} passes commit() positional arguments (line {line})"
    return None


def _tail_statement(
    call: cst.Call, fn: cst.FunctionDef, meta: Meta
) -> tuple[cst.SimpleStatementLine, cst.IndentedBlock] | None:
    """The statement ``call`` forms, and its block, if nothing in ``fn`` can run after it:
    last in its block, inside nothing but ``if``/``elif``/``else``/``with`` that are last too."""
    expr = meta.parent(call)
    line = meta.parent(expr) if isinstance(expr, cst.Expr) else None
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    node: cst.CSTNode = line
    while True:
        block = meta.parent(node)
        if not (isinstance(block, cst.IndentedBlock) and block.body and block.body[-1] is node):
            return None
        owner = meta.parent(block)
        if owner is fn:
            inner = meta.parent(line)
            assert isinstance(inner, cst.IndentedBlock)
            return line, inner
        if isinstance(owner, cst.Else):
            owner = meta.parent(owner)
        while isinstance(owner, cst.If) and isinstance(meta.parent(owner), cst.If):
            owner = meta.parent(owner)  # an elif: climb to the first if of the chain
        if not isinstance(owner, cst.If | cst.With):
            return None
        node = owner


def _plan_final(
    callback: _Callback,
    call: cst.Call,
    name: str,
    partitions: str,
    meta: Meta,
    plan: Plan,
) -> str | None:
    """A final ``assign(partitions)`` in on_assign, or ``unassign`` in a revocation."""
    tail = _tail_statement(call, callback.function, meta)
    if tail is None:
        return f"consumer.{name}() is not the last thing {callback.function.name.value} does"
    last, block = tail
    arg_ok = (
        len(call.args) == 1
        and call.args[0].keyword is None
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == partitions
    )
    if name in _ASSIGNS:
        if callback.keyword != "on_assign" or not arg_ok:
            return f"consumer.{name}() does not assign exactly the callback's partitions"
        loop_var = "partition" if partitions != "partition" else "tp"
        plan.edit(last, lambda node: _seek_loop(node, call, partitions, loop_var))
        return None
    if callback.keyword == "on_assign" or (name == "incremental_unassign" and not arg_ok):
        return f"consumer.{name}() does not release exactly the callback's partitions"
    if name == "unassign" and call.args:
        return "consumer.unassign() with arguments"
    plan.edit(block, lambda node: drop_statement(node, last))  # type: ignore[arg-type]
    return None


def _seek_loop(node: cst.CSTNode, call: cst.Call, partitions: str, var: str) -> Replacement:
    """``consumer.assign(partitions)`` -> ``for p in partitions: consumer.seek(p)``."""
    assert isinstance(node, cst.SimpleStatementLine) and isinstance(call.func, cst.Attribute)
    seek = cst.Call(
        func=call.func.with_changes(attr=cst.Name("seek")), args=[cst.Arg(cst.Name(var))]
    )
    return cst.For(
        target=cst.Name(var),
        iter=cst.Name(partitions),
        body=cst.IndentedBlock(body=[node.with_changes(body=[cst.Expr(seek)], leading_lines=())]),
        leading_lines=node.leading_lines,
    )


def _gather(
    node: cst.CSTNode, callbacks: list[_Callback], class_name: str, base: str, protocol: str
) -> Replacement:
    """Replace the callback functions in their block by one listener class at the first one."""
    assert isinstance(node, cst.Module | cst.IndentedBlock)
    wanted = {cb.function.name.value: CONFLUENT_CALLBACKS[cb.keyword] for cb in callbacks}
    body: list[cst.BaseStatement] = []
    methods: list[cst.FunctionDef] = []
    slot = -1
    for stmt in node.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in wanted:
            if slot < 0:
                slot = len(body)
            methods.append(_method(stmt, wanted[stmt.name.value], protocol, first=not methods))
        else:
            body.append(stmt)
    first = next(s for s in node.body if isinstance(s, cst.FunctionDef) and s.name.value in wanted)
    blank = [line for line in first.leading_lines if line.comment is None]
    listener = cst.ClassDef(
        name=cst.Name(class_name),
        bases=[cst.Arg(cst.Name(base))],
        body=cst.IndentedBlock(body=methods),
        leading_lines=blank,
    )
    body.insert(slot, listener)
    return node.with_changes(body=body)


def _method(fn: cst.FunctionDef, name: str, protocol: str, first: bool) -> cst.FunctionDef:
    """``def on_assign(consumer, partitions)`` -> ``def on_partitions_assigned(self, partitions,
    consumer: RebalanceConsumer)`` with the same body."""
    consumer, partitions = fn.params.params
    self_name = next(n for n in ("self", "listener", "_self") if n not in names_in(fn))
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    params = fn.params.with_changes(
        params=[
            cst.Param(cst.Name(self_name), comma=comma),
            partitions.with_changes(comma=comma),
            consumer.with_changes(
                annotation=cst.Annotation(cst.Name(protocol)), comma=cst.MaybeSentinel.DEFAULT
            ),
        ]
    )
    comments = [line for line in fn.leading_lines if line.comment is not None]
    spacing = [] if first else [cst.EmptyLine(indent=False)]
    body = fn.body
    if isinstance(body, cst.IndentedBlock) and not body.body:
        body = body.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
    return fn.with_changes(
        name=cst.Name(name), params=params, leading_lines=[*spacing, *comments], body=body
    )


def _resubscribe(node: cst.CSTNode, subscribe: str, class_name: str) -> Replacement:
    """``c.subscribe(topics, on_assign=f)`` -> ``subscribe(c, topics, RebalanceCallbacks())``."""
    assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
    topics_index = find_arg(node.args, "topics", 0)
    assert topics_index is not None
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    topics = node.args[topics_index].with_changes(
        keyword=None, equal=cst.MaybeSentinel.DEFAULT, comma=comma
    )
    listener = cst.Arg(cst.Call(func=cst.Name(class_name)))
    return node.with_changes(
        func=cst.Name(subscribe),
        args=[cst.Arg(node.func.value, comma=comma), topics, listener],
    )
