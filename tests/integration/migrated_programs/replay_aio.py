"""confluent's "start from a timestamp" recipe on the asyncio ``AIOConsumer`` (the shape of
``shapes/assign_at_times.py``): on_assign sets each partition's offset to a time, asks
``offsets_for_times`` for the first offset at or after it and assigns that answer; the
incremental form (cooperative and KIP-848 groups) hands the answer to ``incremental_assign``
inline."""

from __future__ import annotations

from typing import Any

from confluent_kafka import TopicPartition
from confluent_kafka.aio import AIOConsumer


async def open_replay(config: dict[str, Any], topic: str, since_ms: int) -> AIOConsumer:
    consumer = AIOConsumer(config)

    async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        for p in partitions:
            p.offset = since_ms
        offsets = await consumer.offsets_for_times(partitions, timeout=10)
        await consumer.assign(offsets)

    await consumer.subscribe([topic], on_assign=on_assign)
    return consumer


async def open_incremental_replay(config: dict[str, Any], topic: str, since_ms: int) -> AIOConsumer:
    consumer = AIOConsumer(config)

    async def at_times(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        for p in partitions:
            p.offset = since_ms
        await consumer.incremental_assign(await consumer.offsets_for_times(partitions))

    await consumer.subscribe([topic], on_assign=at_times)
    return consumer
