"""The listener of super_callbacks_kafka_python.py on aiokafka: its coroutine callbacks do their
own work and then run the base's through ``super()`` (``aiokafka.abc.ConsumerRebalanceListener``,
whose methods are plain no-ops: called, not awaited). It tracks the partitions it owns and, on
revocation, commits the offsets the loop processed of the revoked partitions on the consumer
it was handed (``await self.consumer.commit(offsets)``). Nothing else commits, so that commit
is what keeps a handover exactly-once.
tests/integration/test_migrated_shapes_on_broker_8.py migrates it and runs the result against
the broker."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.structs import TopicPartition

log = logging.getLogger(__name__)


class CommittingListener(ConsumerRebalanceListener):
    def __init__(self, consumer: AIOKafkaConsumer, processed: dict[TopicPartition, int]) -> None:
        super().__init__()
        self.consumer = consumer
        self.owned: set[TopicPartition] = set()
        #: the next offset to process of each partition, as far as the loop got
        self.processed = processed

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)
        log.info("partitions assigned %s", sorted(assigned))
        return super().on_partitions_assigned(assigned)

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        offsets = {tp: self.processed.pop(tp) for tp in revoked if tp in self.processed}
        if offsets:
            await self.consumer.commit(offsets)
        self.owned -= set(revoked)
        log.info("partitions revoked %s", sorted(revoked))
        return super().on_partitions_revoked(revoked)


async def consume(
    consumer: AIOKafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: asyncio.Event
) -> None:
    processed: dict[TopicPartition, int] = {}
    consumer.subscribe([topic], listener=CommittingListener(consumer, processed))
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
