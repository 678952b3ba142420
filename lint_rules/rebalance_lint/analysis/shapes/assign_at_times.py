"""Shape: assign at times: ``on_assign`` assigning what ``offsets_for_times`` found for its
partitions (confluent-kafka's documented way to start from a timestamp)::

    def on_assign(consumer, partitions):
        for p in partitions:
            p.offset = timestamp_ms
        offsets = consumer.offsets_for_times(partitions)   # optionally with a timeout
        consumer.assign(offsets)             # or inline: assign(consumer.offsets_for_times(...))

librdkafka's ``offsets_for_times`` answers with the partitions it was asked about (same
topics and partitions, same order), each at the earliest offset whose timestamp is at or
after the one asked for, or at ``OFFSET_END`` (-1) where there is none: assigning its answer
is assigning exactly the callback's partitions at offsets. The view offers
``offsets_for_times``, and a seek per partition of its answer is staged into the assignment
the adapter makes after the callback (a logical ``OFFSET_END`` included: proven against the
broker by tests/integration/test_confluent_kafka_assign_at_times.py), so ``seek_loop`` makes
the assign ``for partition in offsets: consumer.seek(partition)``. The inline form's call
first becomes ``[partition for partition in consumer.offsets_for_times(...)]``
(``replace_with_expression``), which ``seek_loop`` turns into ``for partition in
consumer.offsets_for_times(...): consumer.seek(partition)``.

Only where that is certain: ``offsets_for_times`` is called on the callback's consumer
parameter with its partitions parameter (and at most a timeout), its answer is bound once, in
the callback's own body, and used by nothing but the assign, which is the last statement of
that body with no ``return`` before it, and the callback never changes its partitions list
itself (``append``, ``del partitions[0]``, an alias...): the adapter assigns that very list.
Otherwise the assign stays refused, saying why.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape

#: list methods that change the list (the adapter assigns the list the callback got)
_CHANGES = frozenset(
    {"append", "extend", "insert", "remove", "pop", "clear", "__setitem__", "__delitem__"}
)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def offsets_at_times(call: ast.Call, facts: FileFacts) -> ast.expr | None:
    """What ``call`` (an assign) assigns when it is what an ``offsets_for_times`` call
    returned: that call (or its ``await``), inline or the value of the one name it passes;
    None when it assigns anything else (not this shape)."""
    if len(call.args) != 1 or call.keywords:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Name):
        bound = facts.bindings.binding(arg)
        statement = facts.parent(bound) if bound is not None else None
        value = _assigned(bound, statement)
        if value is None:
            return None  # bound elsewhere, or by something else: not this shape
        arg = value
    inner = arg.value if isinstance(arg, ast.Await) else arg
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Attribute)
        and inner.func.attr == "offsets_for_times"
    ):
        return arg
    return None


def _assigned(bound: ast.AST | None, statement: ast.AST | None) -> ast.expr | None:
    """The value of ``bound = value`` (or ``bound: T = value``), its one target."""
    if isinstance(statement, ast.Assign) and statement.targets == [bound]:
        return statement.value
    if isinstance(statement, ast.AnnAssign) and statement.target is bound:
        return statement.value
    return None


def plan_at_times(
    found: ast.expr,
    call: ast.Call,
    statement: ast.stmt,
    name: str,
    partitions: str,
    function: Function,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """Stage the seek loop over ``found`` (:func:`offsets_at_times`) replacing ``statement``
    (the assign ``call``); or why not."""
    asked = found.value if isinstance(found, ast.Await) else found
    assert isinstance(asked, ast.Call) and isinstance(asked.func, ast.Attribute)
    what = f"consumer.{name}() of offsets_for_times()'s answer"
    params = [*function.args.posonlyargs, *function.args.args]
    index = next((i for i, p in enumerate(params) if p.arg == partitions), 0)
    consumer = params[index - 1] if index > 0 else None
    receiver = asked.func.value
    if not (
        consumer is not None
        and isinstance(receiver, ast.Name)
        and facts.bindings.binding(receiver) is consumer
    ):
        return (
            f"{what}: offsets_for_times() is called on {ast.unparse(receiver)}, not on the "
            "callback's consumer"
        )
    if not _asks_for(asked, params[index], facts):
        return (
            f"{what}: offsets_for_times({', '.join(map(ast.unparse, asked.args))}) does not "
            f"ask for the callback's partitions parameter ({partitions}) itself, so its answer "
            "may not be exactly the callback's partitions"
        )
    if isinstance(found, ast.Await) != isinstance(facts.parent(call), ast.Await):
        return f"{what}: one of offsets_for_times() and {name}() is awaited, the other not"
    inline = found is call.args[0]
    if not inline:
        why = _used_once(call.args[0], facts, function)
        if why is not None:
            return f"{what}: {why}"
    if function.body[-1] is not statement or _returns(function):
        return (
            f"{what} is not the last statement of {function.name}'s own body, with no return "
            "before it (the seek loop replacing it must run whenever the callback completes, "
            "and nothing after it)"
        )
    changed = _changes_list(params[index], facts)
    if changed is not None:
        return (
            f"{what}: {function.name} changes or aliases its partitions list (line {changed}), "
            "which the adapter assigns after the callback"
        )
    # the loop variable: a name the callback does not use (the loop ends it, nothing after)
    taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    taken |= {a.arg for a in ast.walk(function) if isinstance(a, ast.arg)}
    each = next(v for v in ("partition", "tp", "topic_partition", "_tp") if v not in taken)
    over = call.args[0]
    if isinstance(over, ast.Name):
        plan.edit(Edit("seek_loop", span(statement), value=over.id, extra=each))
        return None
    text = ast.get_source_segment("\n".join(facts.lines), found) or ast.unparse(found)
    value = f"[{each} for {each} in {text}]"  # seek_loop loops over a comprehension's ``in``
    plan.edit(Edit("replace_with_expression", span(found), value=value))
    plan.edit(Edit("seek_loop", span(statement), value=partitions, extra=each))
    return None


def _asks_for(asked: ast.Call, partitions: ast.arg, facts: FileFacts) -> bool:
    """``offsets_for_times(partitions[, timeout])`` with the callback's partitions parameter
    (positional, or ``partitions=``) and optionally a ``timeout``."""
    if any(isinstance(a, ast.Starred) for a in asked.args) or len(asked.args) > 2:
        return False
    given = dict(zip(("partitions", "timeout"), asked.args, strict=False))
    for keyword in asked.keywords:
        if keyword.arg not in ("partitions", "timeout") or keyword.arg in given:
            return False
        given[keyword.arg] = keyword.value
    asked_for = given.get("partitions")
    return isinstance(asked_for, ast.Name) and facts.bindings.binding(asked_for) is partitions


def _used_once(name: ast.expr, facts: FileFacts, function: Function) -> str | None:
    """Why the name the assign passes (bound to the ``offsets_for_times`` call) is not bound
    once, in the callback's own body, and read by the assign alone (None when it is)."""
    assert isinstance(name, ast.Name)
    bound = facts.bindings.binding(name)
    statement = facts.parent(bound) if bound is not None else None
    refs = facts.bindings.references(bound, name.id) if bound is not None else None
    if refs is None or statement not in function.body:
        return (
            f"{name.id} is not bound once, directly in the callback's own body (not under an "
            "if, a loop, a with or a try)"
        )
    others = sorted(r.lineno for r in refs if r is not name)
    if others:
        return (
            f"{name.id} is also used on line {others[0]}; the seek loop replacing the assign "
            "must be its only use"
        )
    return None


def _returns(function: Function) -> bool:
    """Whether ``function`` itself can ``return`` (nested defs and lambdas aside)."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, _NESTED):
            stack.extend(ast.iter_child_nodes(node))
    return False


def _changes_list(partitions: ast.arg, facts: FileFacts) -> int | None:
    """The line of the first place the callback changes its partitions list itself (a list
    method that changes it, an item or slice stored or deleted, ``+=``) or names it again
    (``ps = partitions``: an alias the check cannot follow), if any."""
    refs = facts.bindings.references(partitions, partitions.arg) or []
    for ref in sorted(refs, key=lambda r: (r.lineno, r.col_offset)):
        parent = facts.parent(ref)
        if (
            (isinstance(parent, ast.Attribute) and parent.attr in _CHANGES)
            or (isinstance(parent, ast.Subscript) and not isinstance(parent.ctx, ast.Load))
            or (isinstance(parent, ast.AugAssign) and parent.target is ref)
            or (isinstance(parent, ast.Assign | ast.AnnAssign | ast.NamedExpr))  # an alias
        ):
            return ref.lineno
    return None


SHAPE = Shape(
    name="assign at times",
    planner="confluent",
    recognises=(
        "consumer.assign(offsets) in on_assign where offsets = consumer.offsets_for_times("
        "partitions[, timeout]) is bound once in its body and used by the assign alone, or "
        "consumer.assign(consumer.offsets_for_times(partitions)); the assign ends the body"
    ),
    plan="seek_loop over the answer (inline: replace_with_expression, then seek_loop)",
    fixtures=(
        "tests/codemods/test_assign_at_times.py",
        "tests/codemods/fixtures/assign_at_times.py",
    ),
)
