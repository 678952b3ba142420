"""A kafka-python listener whose callbacks do their own work and then run the base's through
``super()`` (held_out_9 014's tutorial pattern, ``shapes/direct_callback_calls.py``'s
``append_arg``): it tracks the partitions it owns and, on revocation, commits the offsets the
loop processed of the revoked partitions on the consumer it was handed. Nothing else commits,
so that commit is what keeps a handover exactly-once.
tests/integration/test_migrated_shapes_on_broker_6.py migrates it and runs the result against
the broker."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata
from kafka.structs import TopicPartition

log = logging.getLogger(__name__)


class CommittingListener(ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer, processed: dict[TopicPartition, int]) -> None:
        super().__init__()
        self.consumer = consumer
        self.owned: set[TopicPartition] = set()
        #: the next offset to process of each partition, as far as the loop got
        self.processed = processed

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)
        log.info("partitions assigned %s", sorted(assigned))
        return super().on_partitions_assigned(assigned)

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        offsets = {
            tp: OffsetAndMetadata(self.processed.pop(tp), "", -1)
            for tp in revoked
            if tp in self.processed
        }
        if offsets:
            self.consumer.commit(offsets)
        self.owned -= set(revoked)
        log.info("partitions revoked %s", sorted(revoked))
        return super().on_partitions_revoked(revoked)


def consume(
    consumer: KafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: threading.Event
) -> None:
    processed: dict[TopicPartition, int] = {}
    consumer.subscribe([topic], listener=CommittingListener(consumer, processed))
    try:
        while not stopping.is_set():
            for tp, records in consumer.poll(timeout_ms=100).items():
                for record in records:
                    handle(record)
                    processed[tp] = record.offset + 1
    finally:
        consumer.close()
