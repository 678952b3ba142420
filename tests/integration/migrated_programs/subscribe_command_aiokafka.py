"""The subscribe command of subscribe_command_kafka_python.py on aiokafka: a mixin listener
``class SubscribeCommand(AbstractCommand, ConsumerRebalanceListener)`` registering
``listener=self``, with coroutine callbacks committing on revocation."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class AbstractCommand:
    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[dict[str, Any]] = []

    def respond(self, **data: Any) -> None:
        self.sent.append({"command": self.name, **data})


class SubscribeCommand(AbstractCommand, ConsumerRebalanceListener):
    def __init__(self, consumer: AIOKafkaConsumer, handle: Callable[[Any], None]) -> None:
        super().__init__("subscribe")
        self.consumer = consumer
        self.handle = handle
        self.owned: set[Any] = set()

    async def execute(self, topics: list[str], stopping: asyncio.Event) -> None:
        self.consumer.subscribe(topics=topics, listener=self)
        await self.consumer.start()
        self.respond(message="Subscription started!")
        try:
            while not stopping.is_set():
                batches = await self.consumer.getmany(timeout_ms=100)
                for records in batches.values():
                    for record in records:
                        self.handle(record)
        finally:
            await self.consumer.stop()

    async def on_partitions_assigned(self, assigned: Any) -> None:
        self.owned |= set(assigned)
        self.respond(message="assigned", partitions=sorted(tp.partition for tp in assigned))

    async def on_partitions_revoked(self, revoked: Any) -> None:
        await self.consumer.commit()
        self.owned -= set(revoked)
        self.respond(message="revoked", partitions=sorted(tp.partition for tp in revoked))
