"""A kafka-python listener injected with the consumer it is registered on, whose callbacks
reach that consumer only through helper methods of the listener (the shape of
``shapes/listener_helper_methods.py``): the revocation saves the progress with
``self._save_progress(revoked)`` (a bare ``self.consumer.commit()``), the assignment restores
the committed positions with ``self._restore(assigned)`` (``committed`` then ``seek``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.structs import TopicPartition

log = logging.getLogger(__name__)


class ProgressListener(ConsumerRebalanceListener):
    def __init__(self, consumer: KafkaConsumer) -> None:
        self.consumer = consumer
        self.owned: set[TopicPartition] = set()

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self._save_progress(revoked)
        self.owned -= set(revoked)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)
        self._restore(assigned)

    def _save_progress(self, partitions: set[TopicPartition]) -> None:
        if partitions:
            log.info("committing before losing %s", sorted(partitions))
            self.consumer.commit()

    def _restore(self, partitions: set[TopicPartition]) -> None:
        for partition in partitions:
            committed = self.consumer.committed(partition)
            if committed is not None:
                self.consumer.seek(partition, committed)


def consume(
    consumer: KafkaConsumer, topic: str, handle: Callable[[Any], None], stopping: threading.Event
) -> None:
    listener = ProgressListener(consumer)
    consumer.subscribe([topic], listener=listener)
    try:
        while not stopping.is_set():
            for records in consumer.poll(timeout_ms=100).values():
                for record in records:
                    handle(record)
    finally:
        consumer.close()
