# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""``on_assign`` assigning what ``consumer.committed(partitions)`` answered, after a loop that
moves some of the answer's offsets (issue 25; held_out_3 033's shape: a pipeline starting each
partition a warm-up window before its committed offset). librdkafka answers the same
partitions, each at its committed offset or ``OFFSET_INVALID``; the assign becomes a seek per
partition of the answer on the view (``shapes/assign_at_times.py`` recognises the answer,
``shapes/assign_committed.py`` the loops; the broker proof, both sync and AIOConsumer, is
tests/integration/test_confluent_kafka_assign_derived.py). A loop that does more with the
answer's items than move their offsets, or anything else that may change what is assigned,
keeps the assign refused, saying why."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint.api import check_source

# the step an assign at offsets the codemod cannot rewrite names (assign_release.at_line)
BY_HAND = (
    "; migrate it by hand: in its place, seek each of the callback's partitions to its offset "
    "on the callback's consumer (the rebalance view), which the adapter assigns when the "
    "callback returns"
)


def _migrated(before: str) -> str:
    source = textwrap.dedent(before)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    after = result.new_source.decode()
    assert migrate_source(after.encode(), "app.py").new_source is None  # idempotent
    return after


def _krb2xx(source: str) -> list[tuple[str, bool]]:
    findings = check_source(textwrap.dedent(source).encode(), "app.py").findings
    return [(f.code, f.fixable) for f in findings if f.code.startswith("KRB2")]


#: held_out_3 033 as written (its consumer injected, typed Any; structlog-style logging)
PIPELINE = """
    from typing import Any

    from shared.logging import get_logger

    log = get_logger(__name__)


    class PredictionPipelineApp:
        def __init__(self, consumer: Any, warmup_messages: int) -> None:
            self._consumer = consumer
            self._warmup = warmup_messages
            self._resume_at: dict[tuple[str, int], int] = {}

        def on_assign(self, consumer: Any, partitions: list[Any]) -> None:
            committed = consumer.committed(partitions, timeout=10)
            for tp in committed:
                if tp.offset >= 0:
                    low, _high = consumer.get_watermark_offsets(tp, timeout=10)
                    start = max(low, tp.offset - self._warmup)
                    if start < tp.offset:
                        self._resume_at[(tp.topic, tp.partition)] = tp.offset
                        tp.offset = start
                log.info("partition.assigned", topic=tp.topic, partition=tp.partition)
            consumer.incremental_assign(committed)

        def on_revoke(self, consumer: Any, partitions: list[Any]) -> None:
            consumer.commit(asynchronous=False)

        def run(self, topic: str) -> None:
            self._consumer.subscribe([topic], on_assign=self.on_assign, on_revoke=self.on_revoke)
"""


def test_the_real_pipeline_seeks_each_partition_of_the_moved_answer() -> None:
    after = _migrated("from confluent_kafka import Consumer\n" + textwrap.dedent(PIPELINE))
    assert after == "from confluent_kafka import Consumer\n" + textwrap.dedent(
        """
        from typing import Any

        from shared.logging import get_logger
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe

        log = get_logger(__name__)


        class PredictionPipelineApp(RebalanceListener):
            def __init__(self, consumer: Any, warmup_messages: int) -> None:
                self._consumer = consumer
                self._warmup = warmup_messages
                self._resume_at: dict[tuple[str, int], int] = {}

            def on_partitions_assigned(self, partitions: list[Any], consumer: RebalanceConsumer) -> None:
                committed = consumer.committed(partitions, timeout=10)
                for tp in committed:
                    if tp.offset >= 0:
                        low, _high = consumer.get_watermark_offsets(tp, timeout=10)
                        start = max(low, tp.offset - self._warmup)
                        if start < tp.offset:
                            self._resume_at[(tp.topic, tp.partition)] = tp.offset
                            tp.offset = start
                    log.info("partition.assigned", topic=tp.topic, partition=tp.partition)
                for partition in committed:
                    consumer.seek(partition)

            def on_partitions_revoked(self, partitions: list[Any], consumer: RebalanceConsumer) -> None:
                consumer.commit(asynchronous=False)

            def run(self, topic: str) -> None:
                subscribe(self._consumer, [topic], self)
        """
    )


FUNCTION = """
    from confluent_kafka import Consumer


    def on_assign(consumer, partitions):
        committed = consumer.committed(partitions=partitions)
        for tp in committed:
            tp.offset -= 10
            print(f"{tp} from {tp.offset}")
        consumer.assign(committed)
        print("assigned", len(partitions))


    consumer = Consumer({"group.id": "g"})
    consumer.subscribe(["events"], on_assign=on_assign)
"""


def test_an_inline_or_keyword_answer_and_logging_after_the_assign() -> None:
    after = _migrated(FUNCTION)
    assert (
        """        for tp in committed:
            tp.offset -= 10
            print(f"{tp} from {tp.offset}")
        for partition in committed:
            consumer.seek(partition)
        print("assigned", len(partitions))
"""
        in after
    )
    inline = _migrated(
        FUNCTION.replace(
            """        committed = consumer.committed(partitions=partitions)
        for tp in committed:
            tp.offset -= 10
            print(f"{tp} from {tp.offset}")
        consumer.assign(committed)
""",
            "        consumer.assign(consumer.committed(partitions, 5))\n",
        )
    )
    assert (
        "for partition in consumer.committed(partitions, 5):\n            consumer.seek(partition)"
        in inline
    )


AIO = """
    from confluent_kafka import TopicPartition
    from confluent_kafka.aio import AIOConsumer


    async def warm(consumer: AIOConsumer, warmup: int) -> None:
        async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
            committed = await consumer.committed(partitions, timeout=10)
            for tp in committed:
                if tp.offset >= 0:
                    low, _high = await consumer.get_watermark_offsets(tp, timeout=10)
                    tp.offset = max(low, tp.offset - warmup)
            await consumer.incremental_assign(committed)

        await consumer.subscribe(["events"], on_assign=on_assign)
"""


def test_an_aioconsumer_awaits_each_seek() -> None:
    assert _migrated(AIO) == textwrap.dedent(
        """
        from confluent_kafka import TopicPartition
        from confluent_kafka.aio import AIOConsumer
        from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


        async def warm(consumer: AIOConsumer, warmup: int) -> None:
            class RebalanceCallbacks(RebalanceListener):
                async def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    committed = await consumer.committed(partitions, timeout=10)
                    for tp in committed:
                        if tp.offset >= 0:
                            low, _high = await consumer.get_watermark_offsets(tp, timeout=10)
                            tp.offset = max(low, tp.offset - warmup)
                    for partition in committed:
                        await consumer.seek(partition)

            await subscribe(consumer, ["events"], RebalanceCallbacks())
        """
    )


@pytest.mark.parametrize(
    "before",
    ["from confluent_kafka import Consumer\n" + textwrap.dedent(PIPELINE), FUNCTION, AIO],
    ids=["pipeline", "function", "aio"],
)
def test_check_calls_the_registration_fixable_and_nothing_is_left_after(before: str) -> None:
    findings = _krb2xx(before)
    assert findings and all(fixable for _, fixable in findings), findings
    assert _krb2xx(_migrated(before)) == []


REFUSED_SOURCE = """\
from confluent_kafka import Consumer, TopicPartition


def on_assign(consumer, partitions):
    committed = consumer.committed(partitions, timeout=10)
    {body}


consumer = Consumer({{"group.id": "g"}})
consumer.subscribe(["events"], on_assign=on_assign)
"""
#: (what is different, the rest of the callback's body, the whole reason): each keeps its assign
REFUSED = [
    ("a partition changed", "for tp in committed:\n        tp.partition = 0\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 6 does more with its items than read them and set their offset (tp.partition on line 7)"),
    ("an item kept", "for tp in committed:\n        KEPT.append(tp)\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 6 does more with its items than read them and set their offset (KEPT.append(tp) on line 7)"),
    ("an item sought", "for tp in committed:\n        consumer.seek(tp)\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 6 does more with its items than read them and set their offset (consumer.seek(tp) on line 7)"),
    ("an item handed to other code", "for tp in committed:\n        adjust(tp)\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 6 does more with its items than read them and set their offset (adjust(tp) on line 7)"),
    ("an item's offset deleted", "for tp in committed:\n        del tp.offset\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 6 does more with its items than read them and set their offset (tp.offset on line 7)"),
    ("the item read after the loop", "for tp in committed:\n        tp.offset = 0\n    LAST.append(tp)\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 6 does more with its items than read them and set their offset (tp on line 8)"),
    # bound by an earlier loop too is followed (test_assign_at_times: the reused name); bound
    # again inside the loop's own body is not
    ("the loop variable bound twice", "for tp in partitions:\n        print(tp)\n    for tp in committed:\n        tp = TopicPartition(tp.topic, tp.partition, 0)\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 8 does not bind one name the callback binds nowhere else (tp), so what it does with each item cannot be followed"),
    ("a loop after the assign", "consumer.assign(committed)\n    for tp in committed:\n        tp.offset = 0",
     "consumer.assign() of committed()'s answer: the loop over committed on line 7 does not run in the callback before the assign"),
    ("a loop in a nested function", "def later():\n        for tp in committed:\n            tp.offset = 0\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: the loop over committed on line 7 does not run in the callback before the assign"),
    ("the answer used otherwise", "print(len(committed))\n    consumer.assign(committed)",
     "consumer.assign() of committed()'s answer: committed is also used on line 6; the seek loop replacing the assign must be its only use (but for loops before it setting its items' offsets)"),
    ("another consumer asked", "consumer.assign(OTHER.committed(partitions))",
     "consumer.assign() of committed()'s answer: committed() is called on OTHER, not on the callback's consumer"),
    ("other partitions asked", "consumer.assign(consumer.committed([TopicPartition('x', 0)]))",
     "consumer.assign() of committed()'s answer: committed([TopicPartition('x', 0)]) does not ask for the callback's partitions parameter (partitions) itself, so its answer may not be exactly the callback's partitions"),
    ("something but logging after", "consumer.assign(committed)\n    READY.set()",
     "consumer.assign() of committed()'s answer is not the last statement of on_assign's own body (or followed by nothing but logging), with no return in it (the seek loop replacing it must run whenever the callback completes, and nothing after it may see that the adapter assigns once the callback returns)"),
]  # fmt: skip
#: every reason this shape gives (test_refusals.py holds each planner reason to a case)
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("case", "body", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_anything_else_stays_refused_with_its_reason(case: str, body: str, reason: str) -> None:
    source = REFUSED_SOURCE.format(body=body)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    subscribe = source[: source.index(".subscribe(")].count("\n") + 1
    assert [m.line for m in result.manual] == [subscribe], result.manual
    assert result.manual[0].reason.startswith(reason), result.manual
    assert result.manual[0].reason.endswith(BY_HAND), result.manual
    assert _krb2xx(source) == [("KRB203", False)]  # check agrees: not fixable


def test_an_answer_not_awaited_on_an_aioconsumer_stays_refused() -> None:
    source = textwrap.dedent(AIO).replace(
        "committed = await consumer.committed(partitions, timeout=10)",
        "committed = consumer.committed(partitions, timeout=10)",
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert [m.reason for m in result.manual] == [
        "consumer.incremental_assign() of committed()'s answer: one of committed() and "
        "incremental_assign() is awaited, the other not (line 13)" + BY_HAND
    ]
