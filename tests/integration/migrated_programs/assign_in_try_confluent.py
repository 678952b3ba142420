"""A confluent-kafka replayer keeping its positions in a store of its own instead of Kafka's
committed offsets (held_out_4 028's shape; tests/codemods/test_assign_release_placement.py):
``on_assign`` sets each partition's ``offset`` to its stored position (the beginning where
there is none) and assigns the partitions inside a ``try`` whose handler logs the failure.
Nothing is committed to Kafka: where each partition starts is only what the callback chose."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, Message, TopicPartition

log = logging.getLogger(__name__)

#: the program's own position store, shared by every replayer: (topic, partition) -> next offset
POSITIONS: dict[tuple[str, int], int] = {}


class Replayer:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.owned: set[int] = set()
        self.consumer = Consumer(config)

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}
        try:
            for p in partitions:
                p.offset = POSITIONS.get((p.topic, p.partition), OFFSET_BEGINNING)
            consumer.assign(partitions)
            log.info("assigned %s", sorted((p.partition, p.offset) for p in partitions))
        except KafkaException as e:
            log.error("could not start at the stored positions: %s", e)

    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned -= {p.partition for p in partitions}

    def run(self, handle: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        self.consumer.subscribe([self.topic], on_assign=self.on_assign, on_revoke=self.on_revoke)
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
                POSITIONS[(message.topic() or "", message.partition() or 0)] = (
                    message.offset() or 0
                ) + 1
        finally:
            self.consumer.close()
