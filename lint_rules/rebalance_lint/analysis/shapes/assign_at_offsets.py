"""Shape: assign at offsets: ``consumer.assign([TopicPartition(p.topic, p.partition,
OFFSET) for p in partitions])`` in ``on_assign`` (REAL_WORLD.md: assign to set starting
offsets), inline or through a name::

    tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]
    consumer.assign(tps)

``seek_loop`` makes the inline form ``for p in partitions: consumer.seek(TopicPartition(...))``
and the named one ``for partition in tps: consumer.seek(partition)`` (the comprehension stays);
the view stages each seek into the assignment the adapter makes after the callback. The named
form is held to what :func:`.assign_at_times.plan_seek_loop` requires of any assigned list
bound to a name (bound once in the callback's own body, used by nothing else but loops before
the assign moving its items' offsets, the assign ending the callback, no ``return``, the
partitions list unchanged); both forms to the callback leaving its partitions list as it got
it (the adapter assigns that list: a partition added to it would be sought, not assigned)."""

from __future__ import annotations

import ast
import builtins

from rebalance_guard._client_facts import CONFLUENT

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.edits import MigrationPlan
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.assign_at_times import (
    bound_value,
    changes_list,
    parameters,
    plan_seek_loop,
)


def bound_at_offsets(call: ast.Call, partitions: str, function: Function, facts: FileFacts) -> bool:
    """Whether ``call`` (an assign) passes one name whose one binding gives it a list
    comprehension with one loop over the callback's partitions: this shape's to plan or
    refuse (:func:`plan_bound_at_offsets`)."""
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
        return False
    value = bound_value(call.args[0], facts)
    return (
        isinstance(value, ast.ListComp)
        and len(value.generators) == 1
        and isinstance(value.generators[0].iter, ast.Name)
        and value.generators[0].iter.id == partitions
    )


def plan_bound_at_offsets(
    call: ast.Call,
    statement: ast.stmt,
    name: str,
    partitions: str,
    function: Function,
    facts: FileFacts,
    plan: MigrationPlan,
) -> str | None:
    """The seek loop over the name :func:`bound_at_offsets` found, when its comprehension
    builds each of the callback's partitions at an offset (:func:`_each_at_an_offset`; it
    stays where it is, so its loop variable may be any name); or why not (the rest of the
    reasons: :func:`.assign_at_times.plan_seek_loop`)."""
    assigned = call.args[0]
    assert isinstance(assigned, ast.Name)
    value = bound_value(assigned, facts)
    assert value is not None
    what = f"consumer.{name}() of {assigned.id} (a list comprehension over {partitions})"
    if not _each_at_an_offset(value, partitions, function, facts, inline=False):
        unbound = _unbound(value, facts)
        if unbound:
            return (
                f"{what} names {', '.join(unbound)}, bound nowhere in the file (as written "
                "the callback raises NameError there); import them from confluent_kafka, then run "
                "migrate again"
            )
        return (
            f"{what} does not build each of them at an offset as confluent's "
            "TopicPartition(p.topic, p.partition, offset), with no filter"
        )
    return plan_seek_loop(call, statement, what, partitions, function, facts, plan)


def _unbound(value: ast.expr, facts: FileFacts) -> list[str]:
    """The names ``value`` reads that nothing in the file binds (no builtin, no ``import *``)."""
    bound: set[str] = set()
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            if any(alias.name == "*" for alias in node.names):
                return []
            bound.update((a.asname or a.name).partition(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
    found: dict[str, None] = {}  # in the order read
    for node in ast.walk(value):
        if (
            isinstance(node, ast.Name)
            and node.id not in bound
            and facts.bindings.binding(node) is None
            and not hasattr(builtins, node.id)
        ):
            found[node.id] = None
    return list(found)


def at_an_offset(made: ast.expr, each: str, facts: FileFacts) -> bool:
    """``TopicPartition(<each>.topic, <each>.partition, <offset>)`` (confluent's, the fields
    by position or keyword): the partition ``each`` names, at a starting offset."""
    if not (
        isinstance(made, ast.Call)
        and any(
            q.partition(".")[0] == CONFLUENT.package and q.endswith(".TopicPartition")
            for q in facts.qualnames(made.func)
        )
        and len(made.args) <= 3
        and not any(isinstance(a, ast.Starred) for a in made.args)
    ):
        return False
    fields = dict(zip(("topic", "partition", "offset"), made.args, strict=False))
    for keyword in made.keywords:
        if keyword.arg not in ("topic", "partition", "offset") or keyword.arg in fields:
            return False
        fields[keyword.arg] = keyword.value
    same = all(
        isinstance(value := fields.get(field), ast.Attribute)
        and value.attr == field
        and isinstance(value.value, ast.Name)
        and value.value.id == each
        for field in ("topic", "partition")
    )
    return same and "offset" in fields


def _each_at_an_offset(
    arg: ast.expr, partitions: str, function: Function, facts: FileFacts, *, inline: bool = True
) -> bool:
    """``[TopicPartition(p.topic, p.partition, <offset>) for p in partitions]``: each partition
    the callback got, once, at a starting offset (confluent's documented way to start
    elsewhere). ``seek_loop`` makes it ``for p in partitions: consumer.seek(TopicPartition(...))``;
    the view stages each seek into the assignment the adapter makes after the callback.
    ``inline`` (the assign's own argument), the callback must also leave its partitions list
    as it got it (the named form's :func:`.assign_at_times.plan_seek_loop` says so itself),
    and the loop variable, which then lives on in the function, must be used nowhere else."""
    if not (isinstance(arg, ast.ListComp) and len(arg.generators) == 1):
        return False
    if inline and changes_list(parameters(function, partitions)[1], function, facts) is not None:
        return False
    loop = arg.generators[0]
    if (
        loop.ifs
        or loop.is_async
        or not isinstance(loop.target, ast.Name)
        or not (isinstance(loop.iter, ast.Name) and loop.iter.id == partitions)
    ):
        return False
    each, made = loop.target.id, arg.elt
    if not at_an_offset(made, each, facts):
        return False
    if not inline:
        return True
    inside = set(ast.walk(arg))
    for other in ast.walk(function):  # comprehensions binding the same name have their own
        if isinstance(other, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) and any(
            isinstance(loop.target, ast.Name) and loop.target.id == each
            for loop in other.generators
        ):
            inside.update(ast.walk(other))
    return not any(
        isinstance(node, ast.Name) and node.id == each and node not in inside
        for node in ast.walk(function)
    )


SHAPE = Shape(
    name="assign at offsets",
    planner="confluent",
    recognises=(
        "a list comprehension over the callback's partitions building confluent "
        "TopicPartition(topic, partition, offset) of each, assigned inline or through a name "
        "bound once to it and used by the assign alone (the assign then ends the callback)"
    ),
    plan="seek_loop (over the comprehension's own loop inline, over the name otherwise)",
    fixtures=(
        "tests/codemods/test_assign_at_offsets.py",
        "tests/codemods/fixtures/assign_at_offsets.py",
    ),
)
