"""The processor of kept_consumer_aiokafka.py on synchronous kafka-python: handed the consumer
it is registered on, it keeps it for its own polling, commits on revocation, and flushes on
shutdown by calling ``self.on_partitions_revoked(...)`` itself (a kept injected consumer
passed by a direct call outside the callbacks)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer


class Processor(ConsumerRebalanceListener):
    def __init__(self, handle: Callable[[Any], None], consumer: KafkaConsumer) -> None:
        self.handle = handle
        self.consumer = consumer
        self.owned: set[Any] = set()

    def run(self, stopping: threading.Event) -> None:
        try:
            while not stopping.is_set():
                for records in self.consumer.poll(timeout_ms=100).values():
                    for record in records:
                        self.handle(record)
            self.on_partitions_revoked(set(self.owned))
        finally:
            self.consumer.close()

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.owned |= set(assigned)

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.owned -= set(revoked)
        self.consumer.commit()


def serve(
    kafka: KafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: threading.Event
) -> None:
    processor = Processor(handle, kafka)
    kafka.subscribe([topic], listener=processor)
    processor.run(stopping)
