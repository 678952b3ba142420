"""The listener of progress_helpers_kafka_python.py on aiokafka: injected with the consumer it
is registered on, its coroutine callbacks reach it only through helper coroutines of the
listener (``await self.save_progress(revoked)``, a bare ``await self.consumer.commit()``;
``await self.restore(assigned)``, ``committed`` then ``seek``): the shape of
``shapes/listener_helper_methods.py``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
from aiokafka.structs import TopicPartition

log = logging.getLogger(__name__)


class ProgressListener(ConsumerRebalanceListener):
    def __init__(self, consumer: AIOKafkaConsumer) -> None:
        self.consumer = consumer
        self.owned: set[TopicPartition] = set()

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        await self.save_progress(revoked)
        self.owned -= set(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)
        await self.restore(assigned)

    async def save_progress(self, partitions: set[TopicPartition]) -> None:
        if partitions:
            log.info("committing before losing %s", sorted(partitions))
            await self.consumer.commit()

    async def restore(self, partitions: set[TopicPartition]) -> None:
        for partition in partitions:
            committed = await self.consumer.committed(partition)
            if committed is not None:
                self.consumer.seek(partition, committed)


async def consume(
    consumer: AIOKafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: asyncio.Event
) -> None:
    consumer.subscribe([topic], listener=ProgressListener(consumer))
    await consumer.start()
    try:
        while not stopping.is_set():
            batches = await consumer.getmany(timeout_ms=100)
            for records in batches.values():
                for record in records:
                    handle(record)
    finally:
        await consumer.stop()
