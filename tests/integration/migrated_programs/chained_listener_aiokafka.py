"""The wrapper of chained_listener_kafka_python.py on aiokafka: ``TrackingListener``'s coroutine
callbacks record the partitions the member owns and how many changes it saw, then await
``self.inner.on_partitions_*(partitions)`` of the listener its user handed in. ``consume()``
registers it with ``subscribe([topic], listener=TrackingListener(rebalance_listener))``, starts
the consumer, polls with ``getmany`` and stops it. Auto-commit is off and the wrapper commits
nothing: whatever keeps a handover exactly-once is the user's listener, so the chained call must
reach it, with what it takes.
tests/integration/test_migrated_shapes_on_broker_9.py migrates it and runs the result against
the broker, chaining to an aiokafka ``ConsumerRebalanceListener`` and to a rebalance_guard
``RebalanceListener``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.structs import TopicPartition

log = logging.getLogger(__name__)


class TrackingListener(ConsumerRebalanceListener):
    """Keeps the member's partitions up to date, then hands the change to the user's listener."""

    def __init__(self, inner: ConsumerRebalanceListener | None = None) -> None:
        self.inner = inner
        self.owned: set[TopicPartition] = set()
        self.changes = 0

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.owned -= set(revoked)
        self.changes += 1
        log.info("partitions revoked %s", sorted(revoked))
        if self.inner is not None:
            await self.inner.on_partitions_revoked(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)
        self.changes += 1
        log.info("partitions assigned %s", sorted(assigned))
        if self.inner is not None:
            await self.inner.on_partitions_assigned(assigned)


async def consume(
    consumer: AIOKafkaConsumer,
    topic: str,
    handle: Callable[[Any], None],
    stopping: asyncio.Event,
    rebalance_listener: ConsumerRebalanceListener | None = None,
) -> None:
    consumer.subscribe([topic], listener=TrackingListener(rebalance_listener))
    await consumer.start()
    try:
        while not stopping.is_set():
            batches = await consumer.getmany(timeout_ms=100)
            for records in batches.values():
                for record in records:
                    handle(record)
    finally:
        await consumer.stop()
