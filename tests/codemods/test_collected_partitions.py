# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""``on_assign`` collecting every partition it got into a list and assigning that list
(setting starting offsets in a loop): the list is the callback's partitions, so the assign
becomes the seek loop ``assign(partitions)`` becomes (``shapes/collected_partitions.py``).
Where the list may hold anything else, the assign stays refused."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestCollectedPartitions(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_list_of_every_partition_assigned(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def on_assign(consumer, partitions):
                to_assign = []
                for tp in partitions:
                    saved = load(tp.topic, tp.partition)
                    if saved is not None:
                        tp.offset = saved
                    to_assign.append(tp)
                consumer.assign(to_assign)


            consumer = Consumer({"group.id": "g"})
            consumer.subscribe(["orders"], on_assign=on_assign)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    to_assign = []
                    for tp in partitions:
                        saved = load(tp.topic, tp.partition)
                        if saved is not None:
                            tp.offset = saved
                        to_assign.append(tp)
                    for partition in partitions:
                        consumer.seek(partition)


            consumer = Consumer({"group.id": "g"})
            subscribe(consumer, ["orders"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])


BODY = """
from confluent_kafka import Consumer


def on_assign(consumer, partitions):
    to_assign = []
    for tp in {iterated}:
        {loop}
    {after}consumer.assign(to_assign)


consumer = Consumer({{"group.id": "g"}})
consumer.subscribe(["orders"], on_assign=on_assign)
"""
REFUSED = [
    ("appended only if", "partitions", "if tp.partition:\n            to_assign.append(tp)", ""),
    ("a break", "partitions", "if tp.partition:\n            break\n        to_assign.append(tp)", ""),
    ("a continue", "partitions", "if tp.partition:\n            continue\n        to_assign.append(tp)", ""),
    ("something else appended", "partitions", "to_assign.append(other)", ""),
    ("the loop variable rebound", "partitions", "tp = other\n        to_assign.append(tp)", ""),
    ("the list used elsewhere", "partitions", "to_assign.append(tp)", "to_assign.append(other)\n    "),
    ("another iterable", "sorted(partitions)", "to_assign.append(tp)", ""),
    ("not appended last", "partitions", "to_assign.append(tp)\n        tp.offset = 5", ""),
    ("the partitions changed in the loop", "partitions", "partitions.remove(tp)\n        to_assign.append(tp)", ""),
    ("the partitions changed after the loop", "partitions", "to_assign.append(tp)", "partitions.clear()\n    "),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "iterated", "loop", "after"), REFUSED, ids=[r[0] for r in REFUSED]
)
def test_other_lists_stay_refused(name: str, iterated: str, loop: str, after: str) -> None:
    source = textwrap.dedent(BODY).format(iterated=iterated, loop=loop, after=after)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert any(
        "consumer.assign() does not assign exactly the callback's partitions" in m.reason
        for m in result.manual
    ), result.manual


BUILT = """
from confluent_kafka import Consumer, TopicPartition


def on_assign(consumer, parts):
    print("assigned")
    partitions = []
    for p in parts:
        {append}
    consumer.assign(partitions)


c = Consumer({{"group.id": "g"}})
c.subscribe(["t"], on_assign=on_assign)
"""


@pytest.mark.parametrize(
    "append",
    [
        "partitions.append(TopicPartition(topic=p.topic, partition=p.partition, offset=0))",
        "partitions.append(TopicPartition(p.topic, p.partition, start_of(p)))",
    ],
)
def test_a_list_of_each_partition_at_an_offset_is_sought_item_by_item(append: str) -> None:
    """The list holds a new ``TopicPartition`` of each partition at an offset (the held-out
    samples' "start from offset 0" consumer): seeking each of its items is assigning it, the
    view staging each seek into the assignment the adapter makes (as for the comprehension
    form, shapes/assign_at_offsets.py)."""
    result = migrate_source(BUILT.format(append=append).encode(), "app.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    new = result.new_source.decode()
    assert (
        "        for p in parts:\n"
        f"            {append}\n"
        "        for partition in partitions:\n"
        "            consumer.seek(partition)\n"
    ) in new
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent


@pytest.mark.parametrize(
    "append",
    [
        "partitions.append(TopicPartition(p.topic, 0, 0))",  # another partition
        "partitions.append(TopicPartition(p.topic, p.partition))",  # no offset: as given?
        "if p.partition:\n            partitions.append(TopicPartition(p.topic, p.partition, 0))",
        "partitions.append(TopicPartition(p.topic, p.partition, 0))\n        partitions.append(p)",
    ],
    ids=["another-partition", "no-offset", "conditional", "twice"],
)
def test_any_other_built_list_stays_refused(append: str) -> None:
    result = migrate_source(BUILT.format(append=append).encode(), "app.py")
    reasons = [m.reason for m in result.manual]
    assert any("does not assign exactly the callback's partitions" in r for r in reasons), reasons
    assert result.new_source is None
