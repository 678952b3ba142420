"""Shape: assign committed offsets, moved: ``on_assign`` asking ``committed()`` where each of
its partitions stands, moving some of those offsets in a loop over the answer, and assigning
the answer (a shape from real code: a pipeline starting each partition a warm-up window
before its committed offset, to rebuild rolling state)::

    def on_assign(self, consumer, partitions):
        committed = consumer.committed(partitions, timeout=10)
        for tp in committed:
            if tp.offset >= 0:
                low, _high = consumer.get_watermark_offsets(tp, timeout=10)
                tp.offset = max(low, tp.offset - WARMUP)
        consumer.incremental_assign(committed)

:mod:`.assign_at_times` recognises and plans it: one recognition for every consumer call that
answers the partitions it was asked about (``offsets_for_times``, ``committed``), and the
assign becomes ``for partition in committed: consumer.seek(partition)``. This module is what
the shape adds to that: the loops that may change the answer before the assign
(:func:`loop_moves_offsets_only`), for any such answer (or a list comprehension of the
callback's partitions at offsets, :mod:`.assign_at_offsets`).

Why the migrated callback starts where the original does:

* librdkafka's ``committed()`` fills in the list it is given: the same topics and partitions,
  in the same order, each at its committed offset or at ``OFFSET_INVALID`` (-1001) where the
  group committed nothing. So assigning the answer assigns exactly the callback's partitions.
* The view stages each seek on an incoming partition and the adapter assigns the very objects
  sought (``StagingView._assignment_with_offsets``): a partition sought to ``OFFSET_INVALID``
  is assigned at ``OFFSET_INVALID``, with the leader epoch and metadata ``committed()``
  answered, exactly as the original assign hands it to librdkafka, which then starts it at
  the committed offset, else where ``auto.offset.reset`` says.
* The answer's items are new objects that only the answer holds. A loop over it before the
  assign that reads their fields, sets their ``offset`` and passes them to the consumer's
  ``get_watermark_offsets`` or to logging changes only where the assign starts them, and the
  seek loop seeks those same changed objects. Anything else a loop does with an item (setting
  its ``partition``, which confluent's TopicPartition allows, keeping it, handing it to other
  code), or a loop after the assign, keeps the assign refused.
* ``assign()`` or ``incremental_assign()``: the adapter makes the call the group's protocol
  takes (eager: ``assign``; cooperative and KIP-848: ``incremental_assign``). The original's
  call works only under its own protocol: under the other, librdkafka refuses it with
  ``_STATE`` inside the callback, ``poll()`` raises that ``KafkaError`` (an object that is no
  exception: ``except Exception`` does not catch it) and nothing is assigned, so nothing is
  consumed. The migrated callback starts, under every protocol, where the original starts
  under the protocol its call is made for: where the original stalls (or ends the program),
  the migrated one consumes. All proven against Apache Kafka by
  tests/integration/test_confluent_kafka_assign_derived.py.
"""

from __future__ import annotations

import ast

from rebalance_lint.analysis.confluent_callback import Function
from rebalance_lint.analysis.migration_facts import FileFacts
from rebalance_lint.analysis.shape import Shape
from rebalance_lint.analysis.shapes.displayed_consumer import only_displayed

#: what a loop may read of an item (confluent's TopicPartition fields)
_FIELDS = frozenset({"topic", "partition", "offset", "metadata", "leader_epoch", "error"})
#: consumer calls that only read a partition they are given
_READS = frozenset({"get_watermark_offsets"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def loop_moves_offsets_only(
    loop: ast.For,
    assign: ast.stmt,
    consumer: ast.arg | None,
    function: Function,
    facts: FileFacts,
) -> str | None:
    """Why ``loop`` (over the list the ``assign`` statement assigns) may change more than
    where its items start, or run after the assign (None when it cannot): it must be
    ``for item in answer:`` in the callback itself, end before the assign, and use its
    variable only to read the item's fields, set its ``offset``, pass it to the callback's
    ``consumer.get_watermark_offsets(item, ...)`` or turn it into text."""
    over = ast.unparse(loop.iter)
    where = f"the loop over {over} on line {loop.lineno}"
    if (loop.end_lineno or loop.lineno, loop.end_col_offset or 0) > (
        assign.lineno,
        assign.col_offset,
    ) or any(isinstance(a, _NESTED) for a in _between(loop, function, facts)):
        return f"{where} does not run in the callback before the assign"
    target = loop.target
    uses = facts.bindings.references(target, target.id) if isinstance(target, ast.Name) else None
    if uses is None and isinstance(target, ast.Name):
        uses = _body_uses(loop, target.id)  # bound by another loop too: its body's are its own
    if not isinstance(target, ast.Name) or uses is None:
        return (
            f"{where} does not bind one name the callback binds nowhere else "
            f"({ast.unparse(target)}), so what it does with each item cannot be followed"
        )
    body = {id(node) for statement in loop.body for node in ast.walk(statement)}
    for use in sorted(uses, key=lambda u: (u.lineno, u.col_offset)):
        if id(use) not in body or not _moves_or_reads(use, consumer, facts):
            context = facts.parent(use) if id(use) in body else use
            return (
                f"{where} does more with its items than read them and set their offset "
                f"({ast.unparse(context or use)} on line {use.lineno})"
            )
    return None


def _body_uses(loop: ast.For, name: str) -> list[ast.Name] | None:
    """The reads of ``name`` in ``loop``'s body, all of them of the loop's own item when the
    body binds ``name`` nowhere (the callback's other loops reusing the name do not reach
    in: ``for part in partitions: ...`` before ``for part in new_offsets: ...``), else None."""
    found: list[ast.Name] = []
    for statement in loop.body:
        for node in ast.walk(statement):
            if isinstance(node, _NESTED):
                return None  # a nested scope: followed nowhere here
            if isinstance(node, ast.Name) and node.id == name:
                if not isinstance(node.ctx, ast.Load):
                    return None
                found.append(node)
    return found


def _between(node: ast.AST, function: Function, facts: FileFacts) -> list[ast.AST]:
    """The nodes enclosing ``node`` inside ``function``."""
    found: list[ast.AST] = []
    current = facts.parent(node)
    while current is not None and current is not function:
        found.append(current)
        current = facts.parent(current)
    return found


def _moves_or_reads(use: ast.Name, consumer: ast.arg | None, facts: FileFacts) -> bool:
    """``item.<field>``, ``item.offset = ...`` (or ``+=``...), ``consumer.<read>(item, ...)``
    on the callback's consumer, or ``item`` made into text (logged, printed, formatted)."""
    parent = facts.parent(use)
    if isinstance(parent, ast.Attribute) and parent.value is use:
        if isinstance(parent.ctx, ast.Load):
            return parent.attr in _FIELDS
        statement = facts.parent(parent)
        return (
            parent.attr == "offset"
            and isinstance(parent.ctx, ast.Store)
            and (
                (isinstance(statement, ast.Assign) and parent in statement.targets)
                or (isinstance(statement, ast.AugAssign) and statement.target is parent)
            )
        )
    if isinstance(parent, ast.Call) and use in parent.args:
        func = parent.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr in _READS
            and isinstance(func.value, ast.Name)
            and consumer is not None
            and facts.bindings.binding(func.value) is consumer
        ):
            return True
    return only_displayed(use, facts)


SHAPE = Shape(
    name="assign committed offsets, moved",
    planner="confluent",
    recognises=(
        "consumer.assign/incremental_assign(committed) in on_assign where committed = "
        "consumer.committed(partitions[, timeout]) (recognised by assign_at_times), and loops "
        "over the assigned list before the assign that only read its items, set their offset, "
        "ask get_watermark_offsets or log them"
    ),
    plan="seek_loop over the answer (assign_at_times); the loops stay as they are",
    fixtures=(
        "tests/codemods/test_assign_committed.py",
        "tests/codemods/fixtures/assign_committed.py",
    ),
)
