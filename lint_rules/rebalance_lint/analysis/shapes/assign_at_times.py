"""Shape: assign at times (or at committed offsets): ``on_assign`` assigning what a consumer
call answered about its partitions, ``offsets_for_times`` (confluent-kafka's documented way to
start from a timestamp) or ``committed`` (:mod:`.assign_committed`)::

    def on_assign(consumer, partitions):
        for p in partitions:
            p.offset = timestamp_ms
        offsets = consumer.offsets_for_times(partitions)   # optionally with a timeout
        consumer.assign(offsets)             # or inline: assign(consumer.offsets_for_times(...))

librdkafka's ``offsets_for_times`` answers with the partitions it was asked about (same
topics and partitions, same order), each at the earliest offset whose timestamp is at or
after the one asked for, or at ``OFFSET_END`` (-1) where there is none; ``committed`` answers
them at the group's committed offsets, or at ``OFFSET_INVALID`` (-1001) where there is none
(:data:`ANSWERING`). Assigning such an answer is assigning exactly the callback's partitions
at offsets. The view offers both calls, and a seek per partition of the answer is staged into
the assignment the adapter makes after the callback (a logical ``OFFSET_END`` and
``OFFSET_INVALID`` included: proven against the broker by
tests/integration/test_confluent_kafka_assign_at_times.py and ``..._assign_derived.py``), so
``seek_loop`` makes the assign ``for partition in offsets: consumer.seek(partition)``. The
inline form's call first becomes ``[partition for partition in consumer.offsets_for_times(...)]``
(``replace_with_expression``), which ``seek_loop`` turns into ``for partition in
consumer.offsets_for_times(...): consumer.seek(partition)``.

Only where that is certain: the call is made on the callback's consumer parameter with its
partitions parameter (and at most a timeout), its answer is bound once, in the callback's own
body, and used by nothing but the assign and loops before it that only move its items' offsets
(:func:`.assign_committed.loop_moves_offsets_only`); the assign is a statement of that body
followed by nothing but logging, printing or computing values, with no ``return`` in the
callback, and the callback never changes its partitions list itself (``append``, ``del
partitions[0]``, an alias...): the adapter assigns that very list. Otherwise the assign stays
refused, saying why. :func:`plan_seek_loop` is those last checks and the seek loop, shared
with :mod:`.assign_at_offsets`'s list bound to a name.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.assign_committed import loop_moves_offsets_only
from rebalance_lint.analysis.shapes.displayed_consumer import only_text_after

#: consumer calls answering ``(partitions[, timeout])`` with those partitions, same topics and
#: partitions in the same order, each at an offset (librdkafka fills in the list it is given)
ANSWERING = ("offsets_for_times", "committed")
#: list methods that change the list (the adapter assigns the list the callback got)
_CHANGES = frozenset(
    {"append", "extend", "insert", "remove", "pop", "clear", "__setitem__", "__delitem__"}
)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def assigned_answer(call: ast.Call, facts: FileFacts) -> ast.expr | None:
    """What ``call`` (an assign) assigns when it is what an :data:`ANSWERING` call returned:
    that call (or its ``await``), inline or the value of the one name it passes; None when it
    assigns anything else (not this shape)."""
    if len(call.args) != 1 or call.keywords:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Name):
        value = bound_value(arg, facts)
        if value is None:
            return None  # bound elsewhere, or by something else: not this shape
        arg = value
    inner = arg.value if isinstance(arg, ast.Await) else arg
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Attribute)
        and inner.func.attr in ANSWERING
    ):
        return arg
    return None


def bound_value(name: ast.Name, facts: FileFacts) -> ast.expr | None:
    """The value of ``name = value`` (or ``name: T = value``), the one binding of ``name``
    where it is used, its one target; None otherwise."""
    bound = facts.bindings.binding(name)
    statement = facts.parent(bound) if bound is not None else None
    if isinstance(statement, ast.Assign) and statement.targets == [bound]:
        return statement.value
    if isinstance(statement, ast.AnnAssign) and statement.target is bound:
        return statement.value
    return None


def plan_answer(
    found: ast.expr,
    call: ast.Call,
    statement: ast.stmt,
    name: str,
    partitions: str,
    function: Function,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """Stage the seek loop over ``found`` (:func:`assigned_answer`) replacing ``statement``
    (the assign ``call``); or why not."""
    asked = found.value if isinstance(found, ast.Await) else found
    assert isinstance(asked, ast.Call) and isinstance(asked.func, ast.Attribute)
    source = asked.func.attr
    what = f"consumer.{name}() of {source}()'s answer"
    consumer, param = parameters(function, partitions)
    receiver = asked.func.value
    if not (
        consumer is not None
        and isinstance(receiver, ast.Name)
        and facts.bindings.binding(receiver) is consumer
    ):
        return (
            f"{what}: {source}() is called on {ast.unparse(receiver)}, not on the "
            "callback's consumer"
        )
    if not _asks_for(asked, param, facts):
        return (
            f"{what}: {source}({', '.join(map(ast.unparse, asked.args))}) does not "
            f"ask for the callback's partitions parameter ({partitions}) itself, so its answer "
            "may not be exactly the callback's partitions"
        )
    if isinstance(found, ast.Await) != isinstance(facts.parent(call), ast.Await):
        return f"{what}: one of {source}() and {name}() is awaited, the other not"
    inline = found if found is call.args[0] else None
    return plan_seek_loop(call, statement, what, partitions, function, facts, plan, inline=inline)


def parameters(function: Function, partitions: str) -> tuple[ast.arg | None, ast.arg]:
    """The callback's consumer parameter (the one before its partitions), and its partitions
    parameter."""
    params = [*function.args.posonlyargs, *function.args.args]
    index = next((i for i, p in enumerate(params) if p.arg == partitions), 0)
    return (params[index - 1] if index > 0 else None), params[index]


def plan_seek_loop(
    call: ast.Call,
    statement: ast.stmt,
    what: str,
    partitions: str,
    function: Function,
    facts: FileFacts,
    plan: MigrationPlan,
    *,
    inline: ast.expr | None = None,
) -> str | None:
    """Stage ``statement``, the assign ``call`` of a list known to hold exactly the callback's
    partitions at offsets (``inline``, or the name the assign passes), as a seek per item;
    or why not (starting with ``what``): the name must be bound once in the callback's own
    body and used by nothing else but loops before the assign that only move its items'
    offsets, the assign must end the callback (nothing but logging after it, no ``return``)
    and the callback must leave its partitions list as it got it."""
    consumer, param = parameters(function, partitions)
    if inline is None:
        why = _used_once(call.args[0], statement, consumer, function, facts)
        if why is not None:
            return f"{what}: {why}"
    if (
        statement not in function.body
        or _returns(function)
        or not only_text_after(statement, function, facts)
    ):
        return (
            f"{what} is not the last statement of {function.name}'s own body (or followed by "
            "nothing but logging), with no return in it (the seek loop replacing it must run "
            "whenever the callback completes, and nothing after it may see that the adapter "
            "assigns once the callback returns)"
        )
    changed = changes_list(param, function, facts)
    if changed is not None:
        return (
            f"{what}: {function.name} changes or aliases its partitions list (line {changed}), "
            "which the adapter assigns after the callback"
        )
    # the loop variable: a name the callback does not use (the loop ends it, nothing after
    # reads it: only text may follow, and it is not this name)
    taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    taken |= {a.arg for a in ast.walk(function) if isinstance(a, ast.arg)}
    each = next(v for v in ("partition", "tp", "topic_partition", "_tp") if v not in taken)
    if inline is None:
        over = call.args[0]
        assert isinstance(over, ast.Name)
        plan.edit(Edit("seek_loop", span(statement), value=over.id, extra=each))
        return None
    text = ast.get_source_segment("\n".join(facts.lines), inline) or ast.unparse(inline)
    value = f"[{each} for {each} in {text}]"  # seek_loop loops over a comprehension's ``in``
    plan.edit(Edit("replace_with_expression", span(inline), value=value))
    plan.edit(Edit("seek_loop", span(statement), value=partitions, extra=each))
    return None


def _asks_for(asked: ast.Call, partitions: ast.arg, facts: FileFacts) -> bool:
    """``<call>(partitions[, timeout])`` with the callback's partitions parameter (positional,
    or ``partitions=``) and optionally a ``timeout``."""
    if any(isinstance(a, ast.Starred) for a in asked.args) or len(asked.args) > 2:
        return False
    given = dict(zip(("partitions", "timeout"), asked.args, strict=False))
    for keyword in asked.keywords:
        if keyword.arg not in ("partitions", "timeout") or keyword.arg in given:
            return False
        given[keyword.arg] = keyword.value
    asked_for = given.get("partitions")
    return isinstance(asked_for, ast.Name) and facts.bindings.binding(asked_for) is partitions


def _used_once(
    name: ast.expr,
    assign: ast.stmt,
    consumer: ast.arg | None,
    function: Function,
    facts: FileFacts,
) -> str | None:
    """Why the name the assign passes is not bound once, in the callback's own body, and read
    by the assign alone and loops before it that only move its items' offsets (None when it
    is)."""
    assert isinstance(name, ast.Name)
    bound = facts.bindings.binding(name)
    statement = facts.parent(bound) if bound is not None else None
    refs = facts.bindings.references(bound, name.id) if bound is not None else None
    if refs is None or statement not in function.body:
        return (
            f"{name.id} is not bound once, directly in the callback's own body (not under an "
            "if, a loop, a with or a try)"
        )
    for ref in sorted(refs, key=lambda r: (r.lineno, r.col_offset)):
        loop = facts.parent(ref)
        if ref is name:
            continue
        if isinstance(loop, ast.For) and loop.iter is ref:
            why = loop_moves_offsets_only(loop, assign, consumer, function, facts)
            if why is None:
                continue
            return why
        return (
            f"{name.id} is also used on line {ref.lineno}; the seek loop replacing the assign "
            "must be its only use (but for loops before it setting its items' offsets)"
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


def changes_list(partitions: ast.arg, function: Function, facts: FileFacts) -> int | None:
    """The line of the first place the callback changes its partitions list itself (a list
    method that changes it, an item or slice stored or deleted, ``+=``), names it again
    (``ps = partitions``: an alias the check cannot follow) or binds the parameter to
    something else, if any."""
    refs = facts.bindings.references(partitions, partitions.arg)
    if refs is None:  # bound again: the name may not be the list the adapter assigns
        return min(
            (
                node.lineno
                for node in ast.walk(function)
                if isinstance(node, ast.Name)
                and node.id == partitions.arg
                and not isinstance(node.ctx, ast.Load)
            ),
            default=partitions.lineno,
        )
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
        "partitions[, timeout]) or consumer.committed(partitions[, timeout]) is bound once in "
        "its body and used by the assign alone (and loops moving its items' offsets: "
        "assign_committed), or consumer.assign(consumer.offsets_for_times(partitions)); the "
        "assign ends the body (only logging after it)"
    ),
    plan="seek_loop over the answer (inline: replace_with_expression, then seek_loop)",
    fixtures=(
        "tests/codemods/test_assign_at_times.py",
        "tests/codemods/fixtures/assign_at_times.py",
    ),
)
