"""A kafka-python consume loop that registers a listener only when the caller wants to
follow its partitions (the shape of ``shapes/optional_listeners.py``): ``listener = None``,
bound to the one creation of the listener class under ``if on_owned is not None:``, and
registered with ``subscribe([topic], listener=listener)``. Without a hook the consumer is
subscribed with ``listener=None``, which drops any listener registered before. The listener
commits what was processed when partitions are revoked."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer

OwnedHook = Callable[[frozenset[Any]], None]


class OwnedPartitions(ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer, on_owned: OwnedHook) -> None:
        self.consumer = consumer
        self.on_owned = on_owned
        self.owned: set[Any] = set()

    def on_partitions_revoked(self, revoked: Any) -> None:
        if revoked:
            self.consumer.commit()
        self.owned -= set(revoked)
        self.on_owned(frozenset(self.owned))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.owned |= set(assigned)
        self.on_owned(frozenset(self.owned))


def consume(
    consumer: KafkaConsumer,
    topic: str,
    handle: Callable[[Any], None],
    stopping: threading.Event,
    on_owned: OwnedHook | None = None,
) -> None:
    listener = None
    if on_owned is not None:
        listener = OwnedPartitions(consumer, on_owned)
    consumer.subscribe([topic], listener=listener)
    try:
        while not stopping.is_set():
            for records in consumer.poll(timeout_ms=100).values():
                for record in records:
                    handle(record)
    finally:
        consumer.close()
