"""A confluent-kafka data source whose callbacks already carry the listener's names, in
confluent's signature, registered as its own bound methods (the shape of
``shapes/role_named_callbacks.py``: ``on_assign=self.on_partitions_assigned`` with
``def on_partitions_assigned(self, consumer, partitions)``). It tracks the partitions it owns
and commits what it processed, with a bare ``consumer.commit()``, when they are revoked."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Message, TopicPartition

logger = logging.getLogger(__name__)


class KafkaSource:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.owned: set[int] = set()
        self.consumer = Consumer(config)
        self.consumer.subscribe(
            [self.topic],
            on_assign=self.on_partitions_assigned,
            on_revoke=self.on_partitions_revoked,
        )

    def on_partitions_revoked(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        consumer.commit()
        self.owned -= {p.partition for p in partitions}

    def on_partitions_assigned(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}

    def run(self, handle: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None:
                    continue
                if message.error():
                    logger.warning("%s", message.error())
                    continue
                handle(message)
        finally:
            self.consumer.close()
