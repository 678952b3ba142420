"""A confluent-kafka driver pinning where each partition starts from a position store of its
own, per group (the shape of tests/codemods/fixtures/factory_callbacks.py): its ``on_assign``
is made by a factory method, ``self._pin_on_assign(group)``, returning a closure that sets
each partition's ``offset`` where the store has a position, then assigns the partitions.
Nothing is committed to Kafka: where a partition with a position starts is only what the
closure chose (one without starts where ``auto.offset.reset`` says). Every consumer one
driver follows a group with shares its store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Message, TopicPartition


class Driver:
    def __init__(self, config: dict[str, Any]) -> None:
        self._config = config
        self._positions: dict[str, dict[tuple[str, int], int]] = {}

    def follow(self, group: str, topics: list[str]) -> Consumer:
        consumer = Consumer({**self._config, "group.id": group})
        self._positions.setdefault(group, {})
        consumer.subscribe(topics, on_assign=self._pin_on_assign(group))
        return consumer

    def _pin_on_assign(self, group: str) -> Callable[[Consumer, list[TopicPartition]], None]:
        """Resume each partition this driver tracked where it was; others as committed."""

        def assigned(consumer: Consumer, partitions: list[TopicPartition]) -> None:
            positions = self._positions[group]
            for partition in partitions:
                known = positions.get((partition.topic, partition.partition))
                if known is not None:
                    partition.offset = known
            consumer.assign(partitions)

        return assigned

    def position(self, group: str, topic: str, partition: int) -> int | None:
        return self._positions[group].get((topic, partition))

    def consume(
        self,
        consumer: Consumer,
        group: str,
        handle: Callable[[Message[Any, Any]], None],
        stopping: threading.Event,
    ) -> None:
        positions = self._positions[group]
        try:
            while not stopping.is_set():
                message = consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
                positions[(message.topic() or "", message.partition() or 0)] = (
                    message.offset() or 0
                ) + 1
        finally:
            consumer.close()
