"""The program of none_tested_global_kafka_python.py on aiokafka: the revocation reaches the
consumer through a module global, not a parameter: ``consumer = None`` at module level, set in
``main()`` (``global consumer``) before ``consumer.subscribe([topic], listener=Listener())``,
and the revocation's commit guarded by a None test, ``if pending and consumer is not None:
await consumer.commit(pending)``. Auto-commit is off and nothing else commits, so that guarded
commit of the offsets the loop processed of the revoked partitions is what keeps a handover
exactly-once. tests/integration/test_migrated_shapes_on_broker_8.py migrates it and runs the
result against the broker (each member loads it on its own, as its own process would: one
global each)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.structs import TopicPartition

consumer = None
#: the next offset to process of each partition, as far as the loop got
processed: dict[TopicPartition, int] = {}


class Listener(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.owned: set[TopicPartition] = set()

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        pending = {tp: processed.pop(tp) for tp in revoked if tp in processed}
        if pending and consumer is not None:
            await consumer.commit(pending)
        self.owned -= set(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)


async def main(
    servers: str,
    topic: str,
    group_id: str,
    handle: Callable[[Any], None],
    stopping: asyncio.Event,
) -> None:
    global consumer
    consumer = AIOKafkaConsumer(
        bootstrap_servers=servers, group_id=group_id, enable_auto_commit=False
    )
    consumer.subscribe([topic], listener=Listener())
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
