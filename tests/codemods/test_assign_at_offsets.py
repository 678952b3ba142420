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

# the step an assign at offsets the codemod cannot rewrite names (assign_release.at_line)
BY_HAND = (
    "; migrate it by hand: in its place, seek each of the callback's partitions to its offset "
    "on the callback's consumer (the rebalance view), which the adapter assigns when the "
    "callback returns"
)

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
    assert any(
        "does not assign exactly the callback's partitions" in m.reason for m in result.manual
    ), result.manual


def test_the_inline_comprehension_stays_manual_when_the_partitions_list_changes() -> None:
    """The adapter assigns the callback's own list: an added partition would be sought, and
    a seek on a partition not being assigned goes to the consumer (and fails there)."""
    result = _result(
        "assignment.append(TopicPartition('other', 0))\n"
        "        consumer.assign([TopicPartition(tp.topic, tp.partition, 0) for tp in assignment])"
    )
    assert result.new_source is None
    assert "does not assign exactly the callback's partitions" in result.manual[0].reason


#: held_out_3 014's callback (which forgot its imports: here they are made)
NAMED = """
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


def make_consumer(conf):
    c = Consumer(conf)

    def on_assign(consumer, partitions):
        print(f"[rebalance] Assigned: {partitions}", flush=True)
        # Force the consumer to start reading from the earliest offset
        tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]
        consumer.assign(tps)
        print("[rebalance] Forced seek to earliest offsets", flush=True)

    c.subscribe(["events"], on_assign=on_assign)
    return c
"""


def test_a_named_list_becomes_a_seek_loop_over_the_name() -> None:
    """The comprehension stays; the assign seeks each item of it (logging may follow)."""
    result = migrate_source(NAMED.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        def make_consumer(conf):
            c = Consumer(conf)

            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    print(f"[rebalance] Assigned: {partitions}", flush=True)
                    # Force the consumer to start reading from the earliest offset
                    tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]
                    for partition in tps:
                        consumer.seek(partition)
                    print("[rebalance] Forced seek to earliest offsets", flush=True)

            subscribe(c, ["events"], RebalanceCallbacks())
            return c
        """
    )
    assert migrate_source(result.new_source, "app.py").new_source is None


def test_a_named_list_on_an_aioconsumer_awaits_each_seek() -> None:
    source = textwrap.dedent(
        """
        from confluent_kafka import OFFSET_END, TopicPartition
        from confluent_kafka.aio import AIOConsumer


        async def tail(consumer: AIOConsumer) -> None:
            async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
                at_end: list[TopicPartition] = [TopicPartition(p.topic, p.partition, OFFSET_END) for p in partitions]
                await consumer.incremental_assign(at_end)

            await consumer.subscribe(["events"], on_assign=on_assign)
        """
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    assert (
        "            at_end: list[TopicPartition] = [TopicPartition(p.topic, p.partition, OFFSET_END) for p in partitions]\n"
        "            for partition in at_end:\n"
        "                await consumer.seek(partition)\n"
    ) in result.new_source.decode()


NAMED_ASSIGN = "tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]\n        consumer.assign(tps)\n"
#: (what is different, the callback's new body, the whole reason): each keeps its assign
REFUSED = [
    ("the name used otherwise", "tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]\n        print(tps)\n        consumer.assign(tps)",
     "consumer.assign() of tps (a list comprehension over partitions): tps is also used on line 12; the seek loop replacing the assign must be its only use (but for loops before it setting its items' offsets)"),
    ("the name bound under an if", "if partitions:\n            tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]\n        consumer.assign(tps)",
     "consumer.assign() of tps (a list comprehension over partitions): tps is not bound once, directly in the callback's own body (not under an if, a loop, a with or a try)"),
    ("something but logging after", NAMED_ASSIGN + "        READY.set()",
     "consumer.assign() of tps (a list comprehension over partitions) is not the last statement of on_assign's own body (or followed by nothing but logging), with no return in it"),
    ("a return before", "if not partitions:\n            return\n        " + NAMED_ASSIGN,
     "consumer.assign() of tps (a list comprehension over partitions) is not the last statement of on_assign's own body"),
    ("the partitions list changed", "partitions.append(TopicPartition('other', 0))\n        " + NAMED_ASSIGN,
     "consumer.assign() of tps (a list comprehension over partitions): on_assign changes or aliases its partitions list (line 11), which the adapter assigns after the callback"),
    ("a filter", "tps = [TopicPartition(p.topic, p.partition, 0) for p in partitions if p.partition]\n        consumer.assign(tps)",
     "consumer.assign() of tps (a list comprehension over partitions) does not build each of them at an offset as confluent's TopicPartition(p.topic, p.partition, offset), with no filter"),
    ("no offset", "tps = [TopicPartition(p.topic, p.partition) for p in partitions]\n        consumer.assign(tps)",
     "consumer.assign() of tps (a list comprehension over partitions) does not build each of them at an offset"),
    ("names imported nowhere (as held_out_3 014 wrote it)", "tps = [KafkaPartition(p.topic, p.partition, FROM_START) for p in partitions]\n        consumer.assign(tps)",
     "consumer.assign() of tps (a list comprehension over partitions) names KafkaPartition, FROM_START, bound nowhere in the file (as written the callback raises NameError there) (line 12); import them from confluent_kafka, then run migrate again"),
]  # fmt: skip
#: every reason this shape gives (test_refusals.py holds each planner reason to a case)
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("case", "body", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_named_list_stays_refused_with_its_reason(case: str, body: str, reason: str) -> None:
    before = NAMED.replace(
        """        tps = [TopicPartition(p.topic, p.partition, OFFSET_BEGINNING) for p in partitions]
        consumer.assign(tps)
        print("[rebalance] Forced seek to earliest offsets", flush=True)
""",
        f"        {body}\n",
    )
    assert body in before
    result = migrate_source(before.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.line for m in result.manual] == [
        before.count("\n", 0, before.index(".subscribe(")) + 1
    ]
    assert result.manual[0].reason.startswith(reason), result.manual
    assert result.manual[0].reason.endswith((BY_HAND, ", then run migrate again")), result.manual
