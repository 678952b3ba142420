# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""``consumer.assign([TopicPartition(p.topic, p.partition, offset) for p in partitions])`` at
the end of ``on_assign``: confluent's documented way to start each partition elsewhere, as real
code writes it (a commit-log consumer rewinding every partition it gets). The view stages each
seek into the assignment the adapter makes after the callback, so the comprehension becomes a
seek loop over the same partitions. Anything that might assign other partitions stays manual.
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult

HEAD = """
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


def run(positions):
    consumer = Consumer({{"group.id": "g"}})

    def rewind(consumer, assignment):
        {body}

    consumer.subscribe(["log"], on_assign=rewind)
"""


def _result(body: str) -> MigrationResult:
    source = textwrap.dedent(HEAD.format(body=body))
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result.reason
    return result


def test_a_wrapped_comprehension_becomes_a_seek_loop_on_one_line() -> None:
    result = _result(
        """# Every partition from the start, unless we know better.
        consumer.assign(
            [
                TopicPartition(
                    i.topic, i.partition, positions.get((i.topic, i.partition), OFFSET_BEGINNING)
                )
                for i in assignment
            ]
        )"""
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        def run(positions):
            consumer = Consumer({"group.id": "g"})

            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, assignment, consumer: RebalanceConsumer):
                    # Every partition from the start, unless we know better.
                    for i in assignment:
                        consumer.seek(TopicPartition(i.topic, i.partition, positions.get((i.topic, i.partition), OFFSET_BEGINNING)))

            subscribe(consumer, ["log"], RebalanceCallbacks())
        """
    )


@pytest.mark.parametrize(
    "assigned",
    [
        "[TopicPartition(tp.topic, tp.partition, OFFSET_BEGINNING) for tp in assignment]",
        "[TopicPartition(topic=tp.topic, partition=tp.partition, offset=positions[tp.partition]) for tp in assignment]",
        "[TopicPartition(tp.topic, tp.partition, offset=5) for tp in assignment]",
    ],
)
def test_each_spelling_of_the_same_partitions_at_offsets_migrates(assigned: str) -> None:
    result = _result(f"consumer.assign({assigned})")
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    element = assigned[1 : assigned.index(" for tp")]
    assert f"for tp in assignment:\n                consumer.seek({element})" in after


@pytest.mark.parametrize(
    "body",
    [
        # a filter: fewer partitions than the callback got
        "consumer.assign([TopicPartition(tp.topic, tp.partition, 0) for tp in assignment if tp.partition])",
        # not each partition's own topic/partition
        "consumer.assign([TopicPartition(tp.topic, 0, 0) for tp in assignment])",
        "consumer.assign([TopicPartition('other', tp.partition, 0) for tp in assignment])",
        # no offset: nothing to seek to
        "consumer.assign([TopicPartition(tp.topic, tp.partition) for tp in assignment])",
        # two loops, or another iterable
        "consumer.assign([TopicPartition(tp.topic, tp.partition, 0) for tp in assignment for _ in 'ab'])",
        "consumer.assign([TopicPartition(tp.topic, tp.partition, 0) for tp in positions])",
        # something that is not confluent's TopicPartition
        "consumer.assign([Other(tp.topic, tp.partition, 0) for tp in assignment])",
        # the loop variable is a name of the function too: the loop would rebind it
        "tp = None\n        consumer.assign([TopicPartition(tp.topic, tp.partition, 0) for tp in assignment])",
    ],
)
def test_anything_else_is_still_manual(body: str) -> None:
    result = _result(body)
    assert result.new_source is None
    assert any("does not assign exactly the callback's partitions" in m.reason for m in result.manual), result.manual
