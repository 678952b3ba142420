"""An aiokafka tail: a listener injected with its consumer hands it to a helper whose parameter
is annotated with a Protocol of this file naming just the methods the helper calls
(``async end_offsets``, ``seek``), so the helper can be tested with a fake (the shape of
tests/codemods/fixtures/view_protocols.py). On every assignment the member skips what its
partitions already hold: it starts each at its end offset. Nothing is committed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from typing import Any, Protocol

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener


class OffsetSeeker(Protocol):
    async def end_offsets(self, partitions: list[Any]) -> dict[Any, int]: ...

    def seek(self, partition: Any, offset: int) -> None: ...


class SeekToEndListener(ConsumerRebalanceListener):
    """On assign, skip everything already in the topic."""

    def __init__(self, consumer: OffsetSeeker) -> None:
        self._consumer = consumer

    async def on_partitions_revoked(self, revoked: Collection[Any]) -> None:
        return None

    async def on_partitions_assigned(self, assigned: Collection[Any]) -> None:
        await seek_assigned_to_end(self._consumer, assigned)


async def seek_assigned_to_end(consumer: OffsetSeeker, assigned: Collection[Any]) -> None:
    if not assigned:
        return
    end_offsets = await consumer.end_offsets(list(assigned))
    for partition, offset in end_offsets.items():
        consumer.seek(partition, offset)


async def tail(
    consumer: AIOKafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: asyncio.Event
) -> None:
    consumer.subscribe(topics=[topic], listener=SeekToEndListener(consumer))
    await consumer.start()
    try:
        while not stopping.is_set():
            batches = await consumer.getmany(timeout_ms=100)
            for records in batches.values():
                for record in records:
                    handle(record)
    finally:
        await consumer.stop()
