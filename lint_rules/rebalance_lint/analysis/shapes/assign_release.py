"""Shape: ``assign``/``incremental_assign`` in ``on_assign`` and ``unassign`` in a revocation
(confluent's own documented way), anywhere they run once.

KIP-1306 runs ``on_partitions_assigned`` with the partitions assigned, so an assign becomes a
seek per partition (the adapter assigns with the sought offsets) and what follows sees them
on the view too; a release is dropped (the adapter releases) when only logging, printing and
computing values follow it."""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import _ASSIGNS, Function, _Callback
from rebalance_lint.analysis.edits import Edit, MigrationPlan, span
from rebalance_lint.analysis.migration_facts import FileFacts, containing_list, statement_layout
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.assign_at_offsets import (
    _each_at_an_offset,
    bound_at_offsets,
    plan_bound_at_offsets,
)
from rebalance_lint.analysis.shapes.assign_at_times import (
    assigned_answer,
    changes_list,
    parameters,
    plan_answer,
)
from rebalance_lint.analysis.shapes.collected_partitions import (
    collects_each_at_an_offset,
    collects_every_partition,
)
from rebalance_lint.analysis.shapes.displayed_consumer import only_text_after


def _tail_statement(
    call: ast.Call, fn: Function, facts: FileFacts, *, last: bool = True
) -> ast.Expr | None:
    """The statement ``call`` forms (awaited or not), run at most once by ``fn``: inside
    nothing but ``if``/``elif``/``else``/``with`` (and, for an assign, without ``last``, the
    body of a ``try``: its handlers see a failed seek as they saw a failed assign); with
    ``last``, nothing in ``fn`` can run after it (each of those blocks ends with it)."""
    statement = facts.parent(call)
    if isinstance(statement, ast.Await):
        statement = facts.parent(statement)
    if not (isinstance(statement, ast.Expr) and statement_layout(statement, facts) == "own"):
        return None
    node: ast.AST = statement
    while True:
        owner = facts.parent(node)
        body = containing_list(owner, node) if owner is not None else None
        if not body or (last and body[-1] is not node):
            return None
        if owner is fn:
            return statement
        if isinstance(owner, ast.Try):
            if last or body is not owner.body:
                return None
        elif not isinstance(owner, ast.If | ast.With | ast.AsyncWith):
            return None
        node = owner


_BY_HAND = (
    "; migrate it by hand: in its place, seek each of the callback's partitions to its offset "
    "on the callback's consumer (the rebalance view), which the adapter assigns when the "
    "callback returns"
)


def at_line(reason: str, line: int) -> str:
    """A :func:`_plan_final` reason as a refusal: the call's line (before the next step when
    the reason names its own), else the step by hand: what an assign at offsets becomes."""
    if reason.endswith("then run migrate again") and "; " in reason:
        what, _, step = reason.partition("; ")
        return f"{what} (line {line}); {step}"
    step = "" if reason.endswith("then run migrate again") else _BY_HAND
    return f"{reason} (line {line}){step}"


def _plan_final(
    callback: _Callback,
    call: ast.Call,
    name: str,
    partitions: str,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """A final ``assign(partitions)`` in on_assign, or ``unassign`` in a revocation (in a
    lambda: its whole body; ``gather`` rewrites it, see ``_lambda_tail``); an assign of what
    ``offsets_for_times`` or ``committed`` answered is :mod:`.assign_at_times`'s to plan or
    refuse, one of a name bound to a list of the partitions at offsets
    :mod:`.assign_at_offsets`'s."""
    function = callback.function
    last: ast.AST | None
    if isinstance(function, ast.Lambda):
        last = call if function.body is call else None
    else:
        # KIP-1306: on_partitions_assigned runs once the partitions are assigned, so what
        # follows an assign sees them assigned on the view too (its seeks are staged, its
        # pauses held); what follows a release would still see them: nothing but logging
        last = _tail_statement(call, function, facts, last=name not in _ASSIGNS)
        if last is None and name not in _ASSIGNS:
            last = _tail_statement(call, function, facts, last=False)
            if last is not None and not only_text_after(last, function, facts):
                last = None
    if last is None and name in _ASSIGNS and not isinstance(function, ast.Lambda):
        return (
            f"consumer.{name}() is not a statement {callback.label} runs at most once (it "
            "sits in a loop, an except, else or finally block or an expression); call it "
            "once, outside those, then run migrate again"
        )
    if last is None:
        return (
            f"consumer.{name}() is not the last thing {callback.label} does (only logging "
            "may follow a release, which the adapter makes after the callback); move what "
            "follows it before it, then run migrate again"
        )
    times = assigned_answer(call, facts) if name in _ASSIGNS else None
    if times is not None and callback.keyword == "on_assign" and isinstance(last, ast.Expr):
        assert not isinstance(function, ast.Lambda)  # a lambda's ``last`` is its call
        return plan_answer(times, call, last, name, partitions, function, facts, plan)
    if (
        name in _ASSIGNS
        and callback.keyword == "on_assign"
        and isinstance(last, ast.Expr)
        and not isinstance(function, ast.Lambda)
        and bound_at_offsets(call, partitions, function, facts)
    ):
        return plan_bound_at_offsets(call, last, name, partitions, function, facts, plan)
    arg_ok = (
        len(call.args) == 1
        and not call.keywords
        and isinstance(call.args[0], ast.Name)
        and (
            call.args[0].id == partitions
            or (
                name in _ASSIGNS
                and not isinstance(function, ast.Lambda)
                and collects_every_partition(call.args[0], partitions, function, facts)
            )
        )
    )
    if name in _ASSIGNS:
        at_offsets = (
            len(call.args) == 1
            and not call.keywords
            and not isinstance(function, ast.Lambda)
            and _each_at_an_offset(call.args[0], partitions, function, facts)
        )
        built = (  # to_assign.append(TopicPartition(p.topic, p.partition, 0)): seek each item
            len(call.args) == 1
            and not call.keywords
            and isinstance(call.args[0], ast.Name)
            and not isinstance(function, ast.Lambda)
            and collects_each_at_an_offset(call.args[0], partitions, function, facts)
        )
        if callback.keyword != "on_assign" or not (arg_ok or at_offsets or built):
            return (
                f"consumer.{name}() does not assign exactly the callback's partitions, which "
                "the adapter assigns after the callback; assign those (pause on the view the "
                "ones not to be consumed), or use assign() without subscribe() for partitions "
                "of your choosing, then run migrate again"
            )
        plain = isinstance(call.args[0], ast.Name) and call.args[0].id == partitions
        if plain and not isinstance(function, ast.Lambda):
            changed = changes_list(parameters(function, partitions)[1], function, facts)
            if changed is not None:  # partitions.append(...): the adapter assigns as given
                return (
                    f"{callback.label} changes or aliases its {partitions} list first (line "
                    f"{changed}), which the adapter assigns after the callback as it was "
                    "given; leave the list as it is (pause on the view what is not to be "
                    "consumed), then run migrate again"
                )
        over = call.args[0].id if built and isinstance(call.args[0], ast.Name) else partitions
        loop_var = next(n for n in ("partition", "tp", "each") if n not in (partitions, over))
        if not isinstance(function, ast.Lambda):
            plan.edit(Edit("seek_loop", span(last), value=over, extra=loop_var))
        return None
    if callback.keyword == "on_assign" or (name == "incremental_unassign" and not arg_ok):
        return (
            f"consumer.{name}() does not release exactly the callback's partitions, which "
            "the adapter releases after the callback; drop the call, then run migrate again"
        )
    if name == "unassign" and (call.args or call.keywords):
        return (
            "consumer.unassign() with arguments; drop them (the adapter releases the "
            "callback's partitions), then run migrate again"
        )
    if not isinstance(function, ast.Lambda):
        plan.edit(Edit("drop_final", span(last)))
    return None


SHAPE = Shape(
    name="assign and release in callbacks",
    planner="confluent",
    recognises=(
        "consumer.assign/incremental_assign/unassign/incremental_unassign on the "
        "callback's consumer"
    ),
    plan=("seek_loop / drop_final"),
    fixtures=(
        "tests/codemods/test_assign_release_placement.py",
        "tests/codemods/test_confluent.py",
    ),
)
