"""A confluent-kafka consumer wrapper keeping its rebalance handler in an attribute, stored
once as a creation, and registering the handler's bound methods (the shape of
tests/codemods/fixtures/held_handler.py: ``self._handler = RebalanceHandler()``,
``on_assign=self._handler.on_assign``). The handler commits synchronously on revocation,
then forwards the revoked partitions to the user's callback."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, KafkaException, Message, TopicPartition

logger = logging.getLogger(__name__)


class RebalanceHandler:
    def __init__(self) -> None:
        self._on_revoke: Callable[[list[TopicPartition]], None] | None = None
        self.owned: set[int] = set()

    def set_on_revoke(self, callback: Callable[[list[TopicPartition]], None]) -> None:
        self._on_revoke = callback

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        logger.info("assigned %s", partitions)
        self.owned |= {p.partition for p in partitions}

    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        try:
            consumer.commit(asynchronous=False)
        except KafkaException as exc:
            logger.warning("commit failed during rebalance: %s", exc)
        self.owned -= {p.partition for p in partitions}
        if self._on_revoke is not None:
            self._on_revoke(partitions)


class StreamingConsumer:
    def __init__(self, config: dict[str, Any]) -> None:
        self._consumer = Consumer(config)
        self._handler = RebalanceHandler()

    def subscribe(
        self, topics: list[str], on_revoke: Callable[[list[TopicPartition]], None] | None = None
    ) -> None:
        if on_revoke is not None:
            self._handler.set_on_revoke(on_revoke)
        self._consumer.subscribe(
            topics, on_assign=self._handler.on_assign, on_revoke=self._handler.on_revoke
        )

    def run(self, handle: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        try:
            while not stopping.is_set():
                message = self._consumer.poll(0.1)
                if message is None:
                    continue
                if message.error():
                    logger.warning("%s", message.error())
                    continue
                handle(message)
        finally:
            self._consumer.close()
