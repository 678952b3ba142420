"""The program of parameter_listener_kafka_python.py on aiokafka: a listener created by the
caller and handed to the function that subscribes with it (held_out_9 001's
``connect_kafka_consumer`` shape, ``shapes/parameter_listeners.py``). The worker keeps its
offsets outside Kafka (the ``ConsumerRebalanceListener`` recipe): on revocation the listener
saves the processed positions of the revoked partitions to the store; on assignment it hands
the assigned partitions to the poll loop, which starts each at its stored position before
processing any of it. Nothing is committed to Kafka, so those two callbacks are what keep a
handover exactly-once. The worker is created inside the event loop (aiokafka's consumer
needs one). tests/integration/test_migrated_shapes_on_broker_8.py migrates it and runs the
result against the broker."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.structs import TopicPartition

#: the external offset store (a database table in production), shared by the group's members
STORE: dict[TopicPartition, int] = {}


class StoredOffsets(ConsumerRebalanceListener):
    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    async def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.worker.save(revoked)

    async def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.worker.take(assigned)


def connect_kafka_consumer(
    servers: str, topic: str, group_id: str, rebalance_listener: StoredOffsets
) -> AIOKafkaConsumer:
    consumer = AIOKafkaConsumer(
        bootstrap_servers=servers, group_id=group_id, enable_auto_commit=False
    )
    consumer.subscribe([topic], listener=rebalance_listener)
    return consumer


class Worker:
    def __init__(self, servers: str, topic: str, group_id: str) -> None:
        self.owned: set[TopicPartition] = set()
        #: assigned, not yet started at their stored positions
        self.unstarted: set[TopicPartition] = set()
        #: the next offset to process of each owned partition, as far as the loop got
        self.positions: dict[TopicPartition, int] = {}
        self.consumer = connect_kafka_consumer(servers, topic, group_id, StoredOffsets(self))

    def save(self, partitions: set[TopicPartition]) -> None:
        for tp in partitions:
            if tp in self.positions:
                STORE[tp] = self.positions.pop(tp)
        self.owned -= set(partitions)
        self.unstarted -= set(partitions)

    def take(self, partitions: set[TopicPartition]) -> None:
        self.owned |= set(partitions)
        self.unstarted |= set(partitions)

    async def run(self, handle: Callable[[Any], None], stopping: asyncio.Event) -> None:
        await self.consumer.start()
        try:
            while not stopping.is_set():
                batches = await self.consumer.getmany(timeout_ms=100)
                started = set(self.unstarted)
                for tp in started:
                    self.positions[tp] = STORE.get(tp, 0)
                    self.consumer.seek(tp, self.positions[tp])
                self.unstarted -= started
                for tp, records in batches.items():
                    if tp in started:
                        continue  # fetched before it was started: fetched again from there
                    for record in records:
                        handle(record)
                        self.positions[tp] = record.offset + 1
        finally:
            await self.consumer.stop()
