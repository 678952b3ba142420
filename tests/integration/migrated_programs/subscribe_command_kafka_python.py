"""A websocket bridge's subscribe command that is its own rebalance listener (the shape of
``shapes/listener_bases.py``: ``class SubscribeCommand(AbstractCommand,
ConsumerRebalanceListener)`` registering ``listener=self``), on kafka-python. It reports each
rebalance to its client, tracks the partitions it owns, and commits what it processed when
partitions are revoked. tests/integration/test_migrated_shapes_on_broker.py migrates it and
runs the result against the broker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer


class AbstractCommand:
    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[dict[str, Any]] = []

    def respond(self, **data: Any) -> None:
        self.sent.append({"command": self.name, **data})


class SubscribeCommand(AbstractCommand, ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer, handle: Callable[[Any], None]) -> None:
        super().__init__("subscribe")
        self.consumer = consumer
        self.handle = handle
        self.owned: set[Any] = set()

    def execute(self, topics: list[str], stopping: threading.Event) -> None:
        self.consumer.subscribe(topics=topics, listener=self)
        self.respond(message="Subscription started!")
        try:
            while not stopping.is_set():
                for records in self.consumer.poll(timeout_ms=100).values():
                    for record in records:
                        self.handle(record)
        finally:
            self.consumer.close()

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.owned |= set(assigned)
        self.respond(message="assigned", partitions=sorted(tp.partition for tp in assigned))

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.consumer.commit()
        self.owned -= set(revoked)
        self.respond(message="revoked", partitions=sorted(tp.partition for tp in revoked))
