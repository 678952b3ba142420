"""Shape: assign at offsets: ``consumer.assign([TopicPartition(p.topic, p.partition,
OFFSET) for p in partitions])`` in ``on_assign`` (REAL_WORLD.md: assign to set starting
offsets).

``seek_loop`` makes it ``for p in partitions: consumer.seek(TopicPartition(...))``; the view
stages each seek into the assignment the adapter makes after the callback."""

from __future__ import annotations

import ast

from rebalance_guard._client_facts import CONFLUENT

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape


def _each_at_an_offset(
    arg: ast.expr, partitions: str, function: Function, facts: FileFacts
) -> bool:
    """``[TopicPartition(p.topic, p.partition, <offset>) for p in partitions]``: each partition
    the callback got, once, at a starting offset (confluent's documented way to start
    elsewhere). ``seek_loop`` makes it ``for p in partitions: consumer.seek(TopicPartition(...))``;
    the view stages each seek into the assignment the adapter makes after the callback. The
    loop variable then lives on in the function, so it must be used nowhere else there."""
    if not (isinstance(arg, ast.ListComp) and len(arg.generators) == 1):
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
    inside = set(ast.walk(arg))
    for other in ast.walk(function):  # comprehensions binding the same name have their own
        if isinstance(other, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) and any(
            isinstance(loop.target, ast.Name) and loop.target.id == each
            for loop in other.generators
        ):
            inside.update(ast.walk(other))
    return (
        same
        and "offset" in fields
        and not any(
            isinstance(node, ast.Name) and node.id == each and node not in inside
            for node in ast.walk(function)
        )
    )


SHAPE = Shape(
    name="assign at offsets",
    planner="confluent",
    recognises=(
        "a list comprehension over the callback's partitions building confluent "
        "TopicPartition(topic, partition, offset) of each"
    ),
    plan=("seek_loop"),
    fixtures=(
        "tests/codemods/test_assign_at_offsets.py",
        "tests/codemods/fixtures/assign_at_offsets.py",
    ),
)
