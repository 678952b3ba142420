"""A confluent-kafka ledger keeping its progress in a store of its own instead of Kafka's
committed offsets (the checkpoint store of tests/codemods/fixtures/collected_partitions.py):
``on_assign`` builds, in a loop, a ``TopicPartition(p.topic, p.partition, offset)`` of each
partition at its checkpoint (the beginning where there is none) and assigns that list
(confluent's documented way to start elsewhere; the shape of
``shapes/collected_partitions.py``). Nothing is committed to Kafka: where each partition
starts is only what the program chose."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, Message, TopicPartition

#: the program's own offset store, shared by every worker: (topic, partition) -> next offset
CHECKPOINTS: dict[tuple[str, int], int] = {}


class Ledger:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.owned: set[int] = set()
        self.consumer = Consumer(config)

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}
        to_assign = []
        for p in partitions:
            to_assign.append(
                TopicPartition(
                    p.topic, p.partition, CHECKPOINTS.get((p.topic, p.partition), OFFSET_BEGINNING)
                )
            )
        consumer.assign(to_assign)

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
                CHECKPOINTS[(message.topic(), message.partition())] = message.offset() + 1
        finally:
            self.consumer.close()
