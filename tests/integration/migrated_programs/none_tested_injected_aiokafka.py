"""The listener of none_tested_injected_kafka_python.py on aiokafka: injected with its consumer
(``self.consumer``), the revocation's commit guarded by a None test, ``if pending and
self.consumer is not None: await self.consumer.commit(pending)``. Auto-commit is off and
nothing else commits, so that guarded commit of the offsets the loop processed of the revoked
partitions is what keeps a handover exactly-once.
tests/integration/test_migrated_shapes_on_broker_8.py migrates it and runs the result against
the broker."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.structs import TopicPartition


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer: AIOKafkaConsumer, processed: dict[TopicPartition, int]) -> None:
        self.consumer = consumer
        #: the next offset to process of each partition, as far as the loop got
        self.processed = processed
        self.owned: set[TopicPartition] = set()

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        pending = {tp: self.processed.pop(tp) for tp in revoked if tp in self.processed}
        if pending and self.consumer is not None:
            await self.consumer.commit(pending)
        self.owned -= set(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)


async def consume(
    consumer: AIOKafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: asyncio.Event
) -> None:
    processed: dict[TopicPartition, int] = {}
    consumer.subscribe([topic], listener=Listener(consumer, processed))
    await consumer.start()
    try:
        while not stopping.is_set():
            batches = await consumer.getmany(timeout_ms=100)
            for tp, records in batches.items():
                for record in records:
                    handle(record)
                    processed[tp] = record.offset + 1
    finally:
        await consumer.stop()
