"""What a callback's changes to its partitions' offsets do, raw and through the adapter.

A real-world shape (``benchmarks/app_sample`` development data): ``on_assign`` sets
``p.offset = OFFSET_BEGINNING`` on each partition it gets and returns without calling
``assign()``. confluent-kafka hands the callback Python copies of librdkafka's partition list
and, when the callback did not assign, assigns librdkafka's own list: the changes are lost and
consumption starts at the committed offset. The migration moves such a callback onto the view
unchanged, so the adapter must do the same: only the view's seeks (the KIP-1306 way) move a
start offset, never changes to the partition objects. Otherwise migrating the file would change
where it starts (here: reprocess the whole partition).

The oracle is raw confluent-kafka; the same callback then runs through
rebalance_guard.confluent_kafka's Consumer as legacy callbacks and as a migrated listener
(the view), under every protocol; likewise for the asyncio ``AIOConsumer``. A callback that
also removes a partition from its list changes nothing either (librdkafka's list is assigned).
"""

from __future__ import annotations

import asyncio
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import OFFSET_BEGINNING, TopicPartition
from confluent_kafka.aio import AIOConsumer
from rebalance_guard import confluent_kafka_aio as aio_guard
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration import confluent_kafka_aio_support as aio_support
from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import (
    PROTOCOLS,
    closing,
    config,
    poll_until,
    produce,
)

COMMITTED = 3  # the group's committed offset on the one partition; 6 messages in it


def _move_to_beginning(consumer: object, partitions: list[TopicPartition]) -> None:
    """The shape: changes the offsets it is given (and, worse, the list), assigns nothing."""
    for p in partitions:
        p.offset = OFFSET_BEGINNING
    partitions.append(TopicPartition(partitions[0].topic, 0, OFFSET_BEGINNING))


async def _move_to_beginning_async(consumer: object, partitions: list[TopicPartition]) -> None:
    _move_to_beginning(consumer, partitions)


class _MovingListener(RebalanceListener):
    """The same callback migrated: a listener method with the view."""

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        _move_to_beginning(consumer, partitions)


class _AsyncMovingListener(aio_guard.RebalanceListener):
    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: aio_guard.RebalanceConsumer
    ) -> None:
        _move_to_beginning(consumer, partitions)


def _committed_topic(broker: Broker, conf: dict[str, Any]) -> str:
    topic = broker.create_topic(1)
    produce(broker, topic, 6, 1)
    setter = confluent_kafka.Consumer(conf)
    try:
        setter.commit(offsets=[TopicPartition(topic, 0, COMMITTED)], asynchronous=False)
    finally:
        setter.close()
    return topic


def _first_offset(consumer: confluent_kafka.Consumer) -> int:
    seen: list[int] = []
    with closing([consumer]):
        poll_until([consumer], lambda: bool(seen), lambda c, m: seen.append(m.offset() or 0),
                   what="a first message")  # fmt: skip
    return seen[0]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_raw_confluent_ignores_offsets_changed_without_assign(
    broker: Broker, protocol: str
) -> None:
    conf = config(broker, protocol=protocol)
    topic = _committed_topic(broker, conf)
    consumer = confluent_kafka.Consumer(conf)
    consumer.subscribe([topic], on_assign=_move_to_beginning)
    assert _first_offset(consumer) == COMMITTED


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("registered", ["legacy callbacks", "migrated listener"])
def test_the_adapter_ignores_them_too(broker: Broker, protocol: str, registered: str) -> None:
    conf = config(broker, protocol=protocol)
    topic = _committed_topic(broker, conf)
    consumer = Consumer(conf)
    if registered == "legacy callbacks":
        consumer.subscribe([topic], on_assign=_move_to_beginning)
    else:
        set_rebalance_listener(consumer, _MovingListener())
        consumer.subscribe([topic])
    assert _first_offset(consumer) == COMMITTED


async def _first_offset_async(consumer: AIOConsumer) -> int:
    seen: list[int] = []
    async with aio_support.closing([consumer]):
        await aio_support.poll_until([consumer], lambda: bool(seen),
                                     lambda c, m: seen.append(m.offset() or 0),
                                     what="a first message")  # fmt: skip
    return seen[0]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_raw_aioconsumer_ignores_them(broker: Broker, protocol: str) -> None:
    conf = config(broker, protocol=protocol)
    topic = _committed_topic(broker, conf)

    async def scenario() -> int:
        consumer = AIOConsumer(conf)
        await consumer.subscribe([topic], on_assign=_move_to_beginning_async)
        return await _first_offset_async(consumer)

    assert asyncio.run(scenario()) == COMMITTED


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_aioconsumer_adapter_ignores_them_too(broker: Broker, protocol: str) -> None:
    conf = config(broker, protocol=protocol)
    topic = _committed_topic(broker, conf)

    async def scenario() -> int:
        consumer = AIOConsumer(conf)
        await aio_guard.subscribe(consumer, [topic], _AsyncMovingListener())
        return await _first_offset_async(consumer)

    assert asyncio.run(scenario()) == COMMITTED


def test_what_the_adapter_keeps_is_a_copy_with_every_field() -> None:
    """No broker: the snapshot keeps offset, metadata and leader epoch, and changing the
    callback's objects afterwards does not reach it."""
    from rebalance_guard._confluent_common import as_given

    given = [TopicPartition("t", 0, 5, "m", 7), TopicPartition("t", 1)]
    kept = as_given(given)
    given[0].offset = OFFSET_BEGINNING
    assert [(p.topic, p.partition, p.offset, p.metadata, p.leader_epoch) for p in kept] == [
        ("t", 0, 5, "m", 7),
        ("t", 1, confluent_kafka.OFFSET_INVALID, None, None),
    ]
