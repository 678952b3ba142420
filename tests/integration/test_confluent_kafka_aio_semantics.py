"""Runtime semantics (DESIGN.md) for AIOConsumer where they depend on the broker.

The AIOConsumer counterparts of tests/stubs/test_confluent_kafka_semantics.py: registration
replaced and removed after ``subscribe()``, pause surviving the assignment and cleared on
revocation, the view's synchronous commit, lost partitions. Callbacks come from librdkafka
inside ``await consumer.poll()``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from confluent_kafka import Message, TopicPartition
from confluent_kafka.aio import AIOConsumer
from rebalance_guard.confluent_kafka_aio import (
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_aio_support import closing, poll_until
from tests.integration.confluent_kafka_support import (
    PROTOCOLS,
    config,
    number,
    partitions_of,
    produce,
)


class Log(RebalanceListener):
    """Records (event, partitions)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, set[int]]] = []

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append(("assigned", partitions_of(partitions)))

    async def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append(("revoked", partitions_of(partitions)))


def test_registration_replace_and_remove_take_effect_from_the_next_callback(
    broker: Broker,
) -> None:
    topic = broker.create_topic(1)
    first, second = Log(), Log()

    async def scenario() -> None:
        consumer = AIOConsumer(config(broker))
        set_rebalance_listener(consumer, first)
        await consumer.subscribe([topic])
        async with closing([consumer]):
            await poll_until([consumer], lambda: bool(first.events), what="first assignment")
            set_rebalance_listener(consumer, second)  # replace, after subscribe()
            await consumer.subscribe([topic])  # passes the callbacks again: a rebalance
            await poll_until([consumer], lambda: len(second.events) == 2, what="the rebalance")
            set_rebalance_listener(consumer, None)  # remove: no listener runs from now on
        # close() ran the last revocation without any listener

    asyncio.run(scenario())
    assert first.events == [("assigned", {0})]
    assert second.events == [("revoked", {0}), ("assigned", {0})]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_pause_in_assigned_persists_and_pause_on_revoked_is_cleared(
    broker: Broker, protocol: str
) -> None:
    """librdkafka itself would keep partition 1 paused when it comes back (both protocols)."""
    topic = broker.create_topic(2)
    produce(broker, topic, 20, 2)

    class PauseOnce(Log):
        async def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            await super().on_partitions_assigned(partitions, consumer)
            if len(self.events) == 1:
                await consumer.pause([TopicPartition(topic, 1)])  # before it is assigned

    listener = PauseOnce()
    seen: list[Message[Any, Any]] = []

    def from_partition(p: int) -> list[int]:
        return [number(m) for m in seen if m.partition() == p]

    def keep(c: AIOConsumer, m: Message[Any, Any]) -> None:
        seen.append(m)

    async def scenario() -> None:
        consumer = AIOConsumer(config(broker, protocol=protocol))
        await subscribe(consumer, [topic], listener)
        async with closing([consumer]):
            await poll_until([consumer], lambda: len(from_partition(0)) == 10, keep)
            produce(broker, topic, 2, 1, start=100)  # later messages on 0 arrive; 1 stays paused
            await poll_until([consumer], lambda: len(from_partition(0)) == 12, keep)
            assert from_partition(1) == []
            await consumer.unsubscribe()  # everything revoked (from the next poll) ...
            await consumer.subscribe([topic])  # ... and assigned again
            await poll_until([consumer], lambda: len(from_partition(1)) == 10, keep)

    asyncio.run(scenario())
    assert [e for e, _ in listener.events[:3]] == ["assigned", "revoked", "assigned"]


def test_commit_on_view_is_synchronous(broker: Broker) -> None:
    topic = broker.create_topic(1)
    results: list[object] = []

    class Committing(Log):
        async def on_partitions_revoked(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            await super().on_partitions_revoked(partitions, consumer)
            if results:
                return  # the close() at the end: librdkafka times out committed() there
            results.append(await consumer.commit(offsets=[TopicPartition(topic, 0, 7)]))
            (committed,) = await consumer.committed([TopicPartition(topic, 0)], timeout=30)
            results.append(committed.offset)
            later = [TopicPartition(topic, 0, 9)]
            view: Any = consumer  # (its type says None; the test checks the value)
            results.append(await view.commit(offsets=later, asynchronous=True))

    listener = Committing()

    async def scenario() -> None:
        consumer = AIOConsumer(config(broker))
        await subscribe(consumer, [topic], listener)
        async with closing([consumer]):
            await poll_until([consumer], lambda: bool(listener.events), what="assignment")
            await consumer.subscribe([topic])  # revoke (still in the group) and assign again
            await poll_until([consumer], lambda: len(listener.events) == 3, what="rebalance")

    asyncio.run(scenario())
    committed, offset, asynchronous = results
    assert isinstance(committed, list) and committed[0].offset == 7  # returned when done
    assert offset == 7
    assert asynchronous is None  # confluent's asynchronous commit when asked for


def test_lost_partitions_default_to_revoked(broker: Broker) -> None:
    """No poll past max.poll.interval.ms: librdkafka leaves the group, partitions are lost."""
    topic = broker.create_topic(1)

    class Overriding(Log):
        async def on_partitions_lost(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            self.events.append(("lost", partitions_of(partitions)))

    default, overriding = Log(), Overriding()
    timeouts: dict[str, Any] = {"session.timeout.ms": 6000, "max.poll.interval.ms": 6000}

    async def scenario() -> None:
        consumers = [AIOConsumer(config(broker, **timeouts)) for _ in range(2)]
        async with closing(consumers):
            for consumer, listener in zip(consumers, (default, overriding), strict=True):
                await subscribe(consumer, [topic], listener)
                await poll_until([consumer], lambda: bool(listener.events), what="assignment")  # noqa: B023
            await asyncio.sleep(8)  # the trigger itself: no poll for longer than the interval
            await poll_until(
                consumers,
                lambda: len(default.events) >= 2 and len(overriding.events) >= 2,
                what="the lost callbacks",
            )

    asyncio.run(scenario())
    assert default.events[1] == ("revoked", {0})
    assert overriding.events[1] == ("lost", {0})
