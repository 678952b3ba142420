"""An aiokafka processor that is handed the consumer it is registered on, keeps it for its
own polling, commits on revocation, and flushes on shutdown by calling its revocation
callback itself (the shape of ``shapes/direct_callback_calls.py``: a kept injected consumer
passed by a direct call outside the callbacks)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class Processor(ConsumerRebalanceListener):
    def __init__(self, handle: Callable[[Any], None], consumer: AIOKafkaConsumer) -> None:
        self.handle = handle
        self.consumer = consumer
        self.owned: set[Any] = set()

    async def run(self, stopping: asyncio.Event) -> None:
        try:
            while not stopping.is_set():
                batches = await self.consumer.getmany(timeout_ms=100)
                for records in batches.values():
                    for record in records:
                        self.handle(record)
            await self.on_partitions_revoked(set(self.owned))
        finally:
            await self.consumer.stop()

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.owned |= set(assigned)

    async def on_partitions_revoked(self, revoked: Any) -> None:
        self.owned -= set(revoked)
        await self.consumer.commit()


async def serve(
    kafka: AIOKafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: asyncio.Event
) -> None:
    processor = Processor(handle, kafka)
    kafka.subscribe([topic], listener=processor)
    await kafka.start()
    await processor.run(stopping)
