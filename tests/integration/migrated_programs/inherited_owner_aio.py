"""The inherited-owner shape (``shapes/inherited_owner_callbacks.py``) on confluent's asyncio
``AIOConsumer``: a base consumer class registering its own ``on_assign``/``on_revoke`` and a
subclass subscribing to more topics with the callbacks it inherits. The revocation commits
what was processed with a bare ``await consumer.commit()``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from confluent_kafka import Message, TopicPartition
from confluent_kafka.aio import AIOConsumer

logger = logging.getLogger(__name__)


class MessageConsumer:
    def __init__(self, config: dict[str, Any], topics: list[str]) -> None:
        self.consumer = AIOConsumer(config)
        self.topics = topics
        self.owned: set[int] = set()

    async def start(self) -> None:
        await self.consumer.subscribe(
            self.topics, on_assign=self.on_assign, on_revoke=self.on_revoke
        )

    async def on_assign(self, consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}

    async def on_revoke(self, consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        await consumer.commit()
        self.owned -= {p.partition for p in partitions}

    async def run(
        self, handle: Callable[[Message[Any, Any]], None], stopping: asyncio.Event
    ) -> None:
        await self.start()
        try:
            while not stopping.is_set():
                message = await self.consumer.poll(0.1)
                if message is None:
                    continue
                if message.error():
                    logger.warning("%s", message.error())
                    continue
                handle(message)
        finally:
            await self.consumer.close()


class TransactionConsumer(MessageConsumer):
    def __init__(self, config: dict[str, Any], topics: list[str]) -> None:
        super().__init__(config, topics)
        self.streaming_topics: list[str] = []

    async def start(self) -> None:
        topics = self.topics + self.streaming_topics
        await self.consumer.subscribe(topics, on_assign=self.on_assign, on_revoke=self.on_revoke)
