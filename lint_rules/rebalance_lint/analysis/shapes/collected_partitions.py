"""Shape: ``on_assign`` collecting every partition it got into a list, then assigning that
list (REAL_WORLD.md's assign to set starting offsets, written as a loop)::

    to_assign = []
    for partition in partitions:
        partition.offset = load(partition)   # anything not touching to_assign
        to_assign.append(partition)
    consumer.assign(to_assign)

The list holds exactly the callback's partitions (the same objects, offsets set on them),
so the assign is ``assign(partitions)`` and becomes its seek loop (:mod:`.assign_release`).
Only where that is certain: the list starts empty in the callback's own body, the loop runs
once over the partitions parameter there, appends its loop variable (never rebound) as the
last statement of its body, unconditionally, with no ``break``/``continue``/``return`` in
it, nothing else uses the list but the assign, and nothing reads the partitions from the loop
on but the loop itself.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.assign_at_offsets import at_an_offset

_LEAVES = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)


def collects_every_partition(
    arg: ast.expr, partitions: str, function: Function, facts: FileFacts
) -> bool:
    """Whether ``arg`` names a list the callback filled with each of its partitions."""
    found = _collected(arg, partitions, function, facts)
    return found is not None and isinstance(found[1], ast.Name) and found[1].id == found[0]


def collects_each_at_an_offset(
    arg: ast.expr, partitions: str, function: Function, facts: FileFacts
) -> bool:
    """Whether ``arg`` names a list the callback filled with each of its partitions as a new
    ``TopicPartition(p.topic, p.partition, <offset>)`` (the held-out samples' "start from
    offset 0" consumer): seeking each item of that list is assigning it."""
    found = _collected(arg, partitions, function, facts)
    return found is not None and at_an_offset(found[1], found[0], facts)


def _collected(
    arg: ast.expr, partitions: str, function: Function, facts: FileFacts
) -> tuple[str, ast.expr] | None:
    """(the loop variable, what the loop appends) where ``arg`` names a list that starts
    empty in the callback's own body, filled by one top-level loop over the partitions
    appending one item as the last statement of its body, unconditionally, used by nothing
    else (see the module docstring)."""
    if not isinstance(arg, ast.Name):
        return None
    bound = facts.bindings.binding(arg)
    start = facts.parent(bound) if bound is not None else None
    if not (
        isinstance(bound, ast.Name)
        and isinstance(start, ast.Assign | ast.AnnAssign)
        and (start.targets == [bound] if isinstance(start, ast.Assign) else start.target is bound)
        and isinstance(start.value, ast.List)
        and not start.value.elts
        and start in function.body
    ):
        return None
    refs = facts.bindings.references(bound, arg.id)
    others = [r for r in refs or [] if r is not arg]
    if refs is None or len(others) != 1:
        return None
    method = facts.parent(others[0])
    append = facts.parent(method) if method is not None else None
    statement = facts.parent(append) if append is not None else None
    loop = facts.parent(statement) if statement is not None else None
    if not (
        isinstance(method, ast.Attribute)
        and method.attr == "append"
        and isinstance(append, ast.Call)
        and append.func is method
        and len(append.args) == 1
        and not append.keywords
        and isinstance(statement, ast.Expr)
        and isinstance(loop, ast.For)
        and loop in function.body
        and function.body.index(start) < function.body.index(loop)
        and loop.body[-1] is statement
        and not loop.orelse
        and isinstance(loop.iter, ast.Name)
        and loop.iter.id == partitions
        and isinstance(loop.target, ast.Name)
        and facts.bindings.references(loop.target, loop.target.id) is not None
        and not any(isinstance(n, _LEAVES) for s in loop.body for n in ast.walk(s))
        and _untouched_from(loop, partitions, function, facts)
    ):
        return None
    return loop.target.id, append.args[0]


def _untouched_from(loop: ast.For, partitions: str, function: Function, facts: FileFacts) -> bool:
    """Whether the callback reads its partitions parameter from the loop on only as the
    loop's iterable: nothing can change the list between its copy and the seek loop."""
    params = [*function.args.posonlyargs, *function.args.args]
    param = next((p for p in params if p.arg == partitions), None)
    refs = facts.bindings.references(param, partitions) if param is not None else None
    if refs is None:
        return False
    start = (loop.lineno, loop.col_offset)
    return all(r is loop.iter or (r.lineno, r.col_offset) < start for r in refs)


SHAPE = Shape(
    name="partitions collected into a list",
    planner="confluent",
    recognises=(
        "consumer.assign(name) in on_assign where name = [] and a top-level for over the "
        "partitions appends its loop variable (or TopicPartition(p.topic, p.partition, "
        "offset) of it) last, unconditionally"
    ),
    plan="seek_loop over the partitions (as assign(partitions)), or over the list built",
    fixtures=(
        "tests/codemods/test_collected_partitions.py",
        "tests/codemods/fixtures/collected_partitions.py",
    ),
)
