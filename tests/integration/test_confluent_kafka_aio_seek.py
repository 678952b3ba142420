"""Issue 10, item 3 (AIOConsumer): seek in on_partitions_assigned to offsets kept outside Kafka.

In raw confluent an ``await consumer.seek()`` inside an AIOConsumer's ``on_assign`` fails
(librdkafka has not assigned the partition yet); the first test pins that premise on the
installed client. Through the view it works with both protocols, registered with
:func:`set_rebalance_listener` before ``subscribe()`` or with :func:`subscribe`.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from confluent_kafka import KafkaException, Message, TopicPartition
from confluent_kafka.aio import AIOConsumer
from rebalance_guard import confluent_kafka_aio as aio_guard
from rebalance_guard.confluent_kafka_aio import (
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_aio_support import closing, poll_until
from tests.integration.confluent_kafka_support import PROTOCOLS, config, produce
from tests.integration.test_confluent_kafka_seek import REFUSED_ASSIGN


def test_raw_aioconsumer_seek_in_on_assign_fails(broker: Broker) -> None:
    topic = broker.create_topic(1)
    errors: list[KafkaException] = []

    async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        try:
            await consumer.seek(TopicPartition(topic, 0, 1))
        except KafkaException as exc:
            errors.append(exc)

    async def scenario() -> None:
        consumer = AIOConsumer(config(broker))
        await consumer.subscribe([topic], on_assign=on_assign)
        async with closing([consumer]):
            await poll_until([consumer], lambda: bool(errors), what="on_assign")

    asyncio.run(scenario())
    assert len(errors) == 1


class ExternalOffsets(RebalanceListener):
    """Offsets live in an outside store (a dict here, a database table in real life)."""

    def __init__(self, topic: str, store: dict[int, int]) -> None:
        self.topic = topic
        self.store = store

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        for p in partitions:
            await asyncio.sleep(0)  # as if awaiting the store
            await consumer.seek(TopicPartition(self.topic, p.partition, self.store[p.partition]))


#: How the listener gets on the consumer, and whether the adapter then knows the protocol.
ENTRIES = {
    "drop-in AIOConsumer": True,
    "set_rebalance_listener(protocol=)": True,
    "subscribe(protocol=)": True,
    "set_rebalance_listener": False,
    "subscribe": False,
}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_seek_in_assigned_resumes_at_external_offsets(
    broker: Broker, protocol: str, entry: str, capfd: pytest.CaptureFixture[str]
) -> None:
    topic = broker.create_topic(2)
    produce(broker, topic, 20, 2)  # offsets 0-9 on each partition
    store = {0: 4, 1: 7}
    first: dict[int, int] = {}

    def process(c: AIOConsumer, message: Message[Any, Any]) -> None:
        partition, offset = message.partition() or 0, message.offset() or 0
        first.setdefault(partition, offset)
        store[partition] = offset + 1

    async def scenario() -> None:
        listener = ExternalOffsets(topic, store)
        conf = config(broker, protocol=protocol)
        told = cast(Any, protocol) if "protocol=" in entry else None
        if entry == "drop-in AIOConsumer":
            consumer: AIOConsumer = aio_guard.AIOConsumer(conf)
            set_rebalance_listener(consumer, listener)
            await consumer.subscribe([topic])
        elif entry.startswith("set_rebalance_listener"):
            consumer = AIOConsumer(conf)
            set_rebalance_listener(consumer, listener, protocol=told)
            await consumer.subscribe([topic])
        else:
            consumer = AIOConsumer(conf)
            await subscribe(consumer, [topic], listener, protocol=told)
        async with closing([consumer]):
            await poll_until(
                [consumer], lambda: store == {0: 10, 1: 10}, process, what="end of data"
            )

    asyncio.run(scenario())
    assert first == {0: 4, 1: 7}
    warned = capfd.readouterr().err.count(REFUSED_ASSIGN)
    # known protocol: no warning; unknown: eager is tried first, refused once if incremental
    assert warned == (0 if ENTRIES[entry] or protocol == "eager" else 1), warned
