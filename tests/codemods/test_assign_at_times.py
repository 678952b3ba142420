# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""``on_assign`` starting every partition at a time (issue 25; confluent's documented
recipe): it sets each partition's offset to the time and assigns what
``consumer.offsets_for_times(partitions)`` answers, bound to a name or inline. librdkafka
answers the same partitions at offsets, so the assign becomes a seek per partition of the
answer on the view (``shapes/assign_at_times.py``; the broker proof is
tests/integration/test_confluent_kafka_assign_at_times.py). Where the answer may be anything
else, or used for anything else, the assign stays refused and says why."""

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


FUNCTION = """
    from confluent_kafka import Consumer


    def replay(topic, since_ms):
        consumer = Consumer({"group.id": "g"})

        def on_assign(consumer, partitions):
            for p in partitions:
                p.offset = since_ms
            offsets = consumer.offsets_for_times(partitions)
            consumer.assign(offsets)

        consumer.subscribe([topic], on_assign=on_assign)
        return consumer
"""


def test_a_function_callback_seeks_each_partition_of_the_answer() -> None:
    assert _migrated(FUNCTION) == textwrap.dedent(
        """
        from confluent_kafka import Consumer
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        def replay(topic, since_ms):
            consumer = Consumer({"group.id": "g"})

            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    for p in partitions:
                        p.offset = since_ms
                    offsets = consumer.offsets_for_times(partitions)
                    for partition in offsets:
                        consumer.seek(partition)

            subscribe(consumer, [topic], RebalanceCallbacks())
            return consumer
        """
    )


METHOD = """
    import logging

    from confluent_kafka import Consumer


    class TopicReader:
        def __init__(self, topic: str, timestamp: int) -> None:
            self.topic = topic
            self.timestamp = timestamp
            self.total_partitions = 0

        def __on_assign(self, consumer: Consumer, partitions: list) -> None:
            self.total_partitions = len(partitions)
            logging.info(f'Reading from {self.total_partitions} partitions '
                         f'{self.timestamp}')
            for p in partitions:
                p.offset = self.timestamp
            offsets = consumer.offsets_for_times(partitions, timeout=10)
            consumer.assign(offsets)

        def read(self) -> None:
            consumer = Consumer({'group.id': self.topic + '-reader'})
            try:
                consumer.subscribe([self.topic], on_assign=self.__on_assign)
                while consumer.poll(10) is not None:
                    pass
            finally:
                consumer.close()
"""


def test_a_name_mangled_method_callback_as_real_code_writes_it() -> None:
    """benchmarks/.app-corpus-holdout2/011's shape: the owner becomes its own listener."""
    assert _migrated(METHOD) == textwrap.dedent(
        """
        import logging

        from confluent_kafka import Consumer
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        class TopicReader(RebalanceListener):
            def __init__(self, topic: str, timestamp: int) -> None:
                self.topic = topic
                self.timestamp = timestamp
                self.total_partitions = 0

            def on_partitions_assigned(self, partitions: list, consumer: RebalanceConsumer) -> None:
                self.total_partitions = len(partitions)
                logging.info(f'Reading from {self.total_partitions} partitions '
                             f'{self.timestamp}')
                for p in partitions:
                    p.offset = self.timestamp
                offsets = consumer.offsets_for_times(partitions, timeout=10)
                for partition in offsets:
                    consumer.seek(partition)

            def read(self) -> None:
                consumer = Consumer({'group.id': self.topic + '-reader'})
                try:
                    subscribe(consumer, [self.topic], self)
                    while consumer.poll(10) is not None:
                        pass
                finally:
                    consumer.close()
        """
    )


INLINE = """
    from confluent_kafka import Consumer, TopicPartition


    def on_assign(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        for tp in partitions:
            tp.offset = START_MS
        consumer.assign(consumer.offsets_for_times(partitions, 5.0))


    consumer = Consumer({"group.id": "g"})
    consumer.subscribe(["events"], on_assign=on_assign)
"""


def test_the_inline_answer_becomes_the_seek_loop_iterable() -> None:
    assert _migrated(INLINE) == textwrap.dedent(
        """
        from confluent_kafka import Consumer, TopicPartition
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        class RebalanceCallbacks(RebalanceListener):
            def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                for tp in partitions:
                    tp.offset = START_MS
                for partition in consumer.offsets_for_times(partitions, 5.0):
                    consumer.seek(partition)


        consumer = Consumer({"group.id": "g"})
        subscribe(consumer, ["events"], RebalanceCallbacks())
        """
    )


AIO = """
    from confluent_kafka import TopicPartition
    from confluent_kafka.aio import AIOConsumer


    async def replay(config: dict[str, object], topic: str, since_ms: int) -> AIOConsumer:
        consumer = AIOConsumer(config)

        async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
            for p in partitions:
                p.offset = since_ms
            offsets = await consumer.offsets_for_times(partitions, timeout=10)
            await consumer.assign(offsets)

        async def at_times(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
            for p in partitions:
                p.offset = since_ms
            await consumer.incremental_assign(await consumer.offsets_for_times(partitions))

        await consumer.subscribe([topic], on_assign=on_assign)
        await consumer.subscribe([topic], on_assign=at_times)
        return consumer
"""


def test_an_aioconsumer_awaits_the_answer_and_each_seek() -> None:
    assert _migrated(AIO) == textwrap.dedent(
        """
        from confluent_kafka import TopicPartition
        from confluent_kafka.aio import AIOConsumer
        from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


        async def replay(config: dict[str, object], topic: str, since_ms: int) -> AIOConsumer:
            consumer = AIOConsumer(config)

            class RebalanceCallbacks(RebalanceListener):
                async def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    for p in partitions:
                        p.offset = since_ms
                    offsets = await consumer.offsets_for_times(partitions, timeout=10)
                    for partition in offsets:
                        await consumer.seek(partition)

            class RebalanceCallbacks2(RebalanceListener):
                async def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    for p in partitions:
                        p.offset = since_ms
                    for partition in await consumer.offsets_for_times(partitions):
                        await consumer.seek(partition)

            await subscribe(consumer, [topic], RebalanceCallbacks())
            await subscribe(consumer, [topic], RebalanceCallbacks2())
            return consumer
        """
    )


def test_logging_after_the_assign_stays_after_the_seek_loop() -> None:
    """Text made after the assign cannot tell that the adapter assigns once the callback
    returns (the seeks are staged by then, whatever the logging raises)."""
    before = textwrap.dedent(FUNCTION).replace(
        "consumer.assign(offsets)\n",
        "consumer.assign(offsets)\n        logging.info('assigned %d at %d', len(partitions), since_ms)\n",
    )
    after = _migrated(before)
    assert (
        "            for partition in offsets:\n"
        "                consumer.seek(partition)\n"
        "            logging.info('assigned %d at %d', len(partitions), since_ms)\n"
    ) in after


def test_the_loop_variable_is_a_name_the_callback_does_not_use() -> None:
    before = textwrap.dedent(FUNCTION).replace(
        "for p in partitions:\n            p.offset",
        "for partition in partitions:\n            partition.offset",
    )
    assert "partition.offset" in before
    after = _migrated(before)
    assert "for tp in offsets:\n                consumer.seek(tp)" in after


@pytest.mark.parametrize(
    "before", [FUNCTION, METHOD, INLINE, AIO], ids=["function", "method", "inline", "aio"]
)
def test_check_calls_the_registration_fixable_and_nothing_is_left_after(before: str) -> None:
    findings = _krb2xx(before)
    assert findings and all(fixable for _, fixable in findings), findings
    assert _krb2xx(_migrated(before)) == []


#: (what is different, the callback's body): each keeps its assign, refused with the reason
REFUSED = {
    "the answer also used": (
        "offsets = consumer.offsets_for_times(partitions)\n"
        "    print(len(offsets))\n"
        "    consumer.assign(offsets)",
        "offsets is also used on line 8; the seek loop replacing the assign must be its only use (but for loops before it setting its items' offsets)",
    ),
    "the answer changed": (
        "offsets = consumer.offsets_for_times(partitions)\n"
        "    offsets.pop()\n"
        "    consumer.assign(offsets)",
        "offsets is also used on line 8",
    ),
    "other partitions asked for": (
        "offsets = consumer.offsets_for_times([TopicPartition('other', 0, SINCE)])\n"
        "    consumer.assign(offsets)",
        "offsets_for_times([TopicPartition('other', 0, SINCE)]) does not ask for the callback's partitions parameter (partitions) itself",
    ),
    "a part of the partitions asked for": (
        "consumer.assign(consumer.offsets_for_times(partitions[:1]))",
        "offsets_for_times(partitions[:1]) does not ask for the callback's partitions parameter (partitions) itself, so its answer may not be exactly the callback's partitions",
    ),
    "asked of another consumer": (
        "consumer.assign(OTHER.offsets_for_times(partitions))",
        "offsets_for_times() is called on OTHER, not on the callback's consumer",
    ),
    "something but logging after the assign": (
        "offsets = consumer.offsets_for_times(partitions)\n"
        "    consumer.assign(offsets)\n"
        "    READY.set()",
        "consumer.assign() of offsets_for_times()'s answer is not the last statement of on_assign's own body (or followed by nothing but logging), with no return in it",
    ),
    "the assign under an if": (
        "offsets = consumer.offsets_for_times(partitions)\n"
        "    if READY:\n"
        "        consumer.assign(offsets)",
        "is not the last statement of on_assign's own body (or followed by nothing but logging)",
    ),
    "a return before the assign": (
        "offsets = consumer.offsets_for_times(partitions)\n"
        "    if not READY:\n"
        "        return\n"
        "    consumer.assign(offsets)",
        "is not the last statement of on_assign's own body (or followed by nothing but logging)",
    ),
    "the answer bound in an if": (
        "if READY:\n"
        "        offsets = consumer.offsets_for_times(partitions)\n"
        "    else:\n"
        "        offsets = []\n"
        "    consumer.assign(offsets)",
        "does not assign exactly the callback's partitions",  # two bindings: not this shape
    ),
    "the answer bound under an if": (
        "if READY:\n"
        "        offsets = consumer.offsets_for_times(partitions)\n"
        "    consumer.assign(offsets)",
        "offsets is not bound once, directly in the callback's own body (not under an if, a loop, a with or a try)",
    ),
    "the partitions list changed": (
        "partitions.append(TopicPartition('other', 0))\n"
        "    consumer.assign(consumer.offsets_for_times(partitions))",
        "on_assign changes or aliases its partitions list (line 7), which the adapter assigns after the callback",
    ),
    "the partitions list aliased": (
        "ps = partitions\n    consumer.assign(consumer.offsets_for_times(partitions))",
        "on_assign changes or aliases its partitions list (line 7)",
    ),
}
REFUSED_SOURCE = """\
from confluent_kafka import Consumer, TopicPartition


def on_assign(consumer, partitions):
    for p in partitions:
        p.offset = SINCE
    {body}


consumer = Consumer({{"group.id": "g"}})
consumer.subscribe(["events"], on_assign=on_assign)
"""


@pytest.mark.parametrize("case", list(REFUSED))
def test_anything_else_stays_refused_with_its_reason(case: str) -> None:
    body, reason = REFUSED[case]
    source = REFUSED_SOURCE.format(body=body)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    subscribe = source[: source.index(".subscribe(")].count("\n") + 1
    assert [m.line for m in result.manual] == [subscribe], result.manual
    assert reason in result.manual[0].reason, result.manual
    assert result.manual[0].reason.endswith((BY_HAND, ", then run migrate again")), result.manual
    assert _krb2xx(source) == [("KRB203", False)]  # check agrees: not fixable


def test_an_answer_not_awaited_on_an_aioconsumer_stays_refused() -> None:
    """The un-awaited coroutine is what would be assigned: not the answer."""
    source = textwrap.dedent(AIO).replace(
        "offsets = await consumer.offsets_for_times(partitions, timeout=10)",
        "offsets = consumer.offsets_for_times(partitions, timeout=10)",
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is not None, result
    assert [m.reason for m in result.manual] == [
        "consumer.assign() of offsets_for_times()'s answer: one of offsets_for_times() and "
        "assign() is awaited, the other not (line 13)" + BY_HAND
    ]
    # the other registration (the inline, awaited answer) still migrates; this one stays
    assert "await consumer.subscribe([topic], on_assign=on_assign)" in result.new_source.decode()


def test_a_loop_over_the_answer_reusing_an_earlier_loops_name_migrates() -> None:
    """``for part in partitions: part.offset = since`` then ``for part in answer: print(...)``
    (held_out_5 036, read after its figure was recorded: a course's "start 5 minutes ago"
    consumer): the name is bound twice, but the second loop's body reads only its own item,
    so what it does with each item is followed as for a name bound once."""
    source = (
        REFUSED_SOURCE.replace("for p in partitions", "for part in partitions")
        .replace("p.offset = SINCE", "part.offset = SINCE")
        .format(
            body="answer = consumer.offsets_for_times(partitions)\n"
            "    for part in answer:\n"
            "        print(part.partition, part.offset)\n"
            "    consumer.assign(answer)"
        )
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    new = result.new_source.decode()
    assert "        for partition in answer:\n            consumer.seek(partition)\n" in new
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent


def test_a_reused_loop_name_rebound_inside_the_loop_stays_refused() -> None:
    source = (
        REFUSED_SOURCE.replace("for p in partitions", "for part in partitions")
        .replace("p.offset = SINCE", "part.offset = SINCE")
        .format(
            body="answer = consumer.offsets_for_times(partitions)\n"
            "    for part in answer:\n"
            "        part = TopicPartition(part.topic, part.partition, 0)\n"
            "    consumer.assign(answer)"
        )
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    assert any("does not bind one name the callback binds nowhere else (part)" in m.reason
               for m in result.manual), result.manual  # fmt: skip
