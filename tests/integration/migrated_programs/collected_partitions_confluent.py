"""The ledger of collected_offsets_confluent.py written as the codemod fixture writes it
(tests/codemods/fixtures/collected_partitions.py): ``on_assign`` sets each partition's
``offset`` from the program's own checkpoint store where it has one, appends every partition
to a list and assigns that list. Nothing is committed to Kafka: a partition without a
checkpoint starts where ``auto.offset.reset`` says, any other only where the program chose."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Message, TopicPartition

#: the program's own offset store, shared by every worker: (topic, partition) -> next offset
CHECKPOINTS: dict[tuple[str, int], int] = {}


class Ledger:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.owned: set[int] = set()
        self.consumer = Consumer(config)

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}
        to_assign: list[TopicPartition] = []
        for partition in partitions:
            saved = CHECKPOINTS.get((partition.topic, partition.partition))
            if saved is not None:
                partition.offset = saved
            to_assign.append(partition)
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
