"""A kafka-python listener injected with its consumer (``self.consumer``), the revocation's
commit guarded by a None test, ``if pending and self.consumer is not None:
self.consumer.commit(pending)``. Auto-commit is off and nothing else commits, so that guarded
commit of the offsets the loop processed of the revoked partitions is what keeps a handover
exactly-once. tests/integration/test_migrated_shapes_on_broker_7.py migrates it and runs the
result against the broker."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata
from kafka.structs import TopicPartition


class Listener(ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer, processed: dict[TopicPartition, int]) -> None:
        self.consumer = consumer
        #: the next offset to process of each partition, as far as the loop got
        self.processed = processed
        self.owned: set[TopicPartition] = set()

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        pending = {
            tp: OffsetAndMetadata(self.processed.pop(tp), "", -1)
            for tp in revoked
            if tp in self.processed
        }
        if pending and self.consumer is not None:
            self.consumer.commit(pending)
        self.owned -= set(revoked)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)


def consume(
    consumer: KafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: threading.Event
) -> None:
    processed: dict[TopicPartition, int] = {}
    consumer.subscribe([topic], listener=Listener(consumer, processed))
    try:
        while not stopping.is_set():
            for tp, records in consumer.poll(timeout_ms=100).items():
                for record in records:
                    handle(record)
                    processed[tp] = record.offset + 1
    finally:
        consumer.close()
