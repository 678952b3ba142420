"""The service's rebalance listener: commits the processed offsets before partitions move."""

from __future__ import annotations

import sys

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commit the processed offsets before partitions are handed to another member."""

    def __init__(self, consumer: KafkaConsumer, label: str) -> None:
        self.consumer = consumer
        self.label = label

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        # Everything poll() returned has been processed: commit the positions.
        self.consumer.commit()
        self._log("revoked", revoked)

    def on_partitions_lost(self, lost: set[TopicPartition]) -> None:
        # Already owned by another member: committing would fail, so just let go.
        self._log("lost", lost)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self._log("assigned", assigned)

    def _log(self, what: str, partitions: set[TopicPartition]) -> None:
        numbers = sorted(tp.partition for tp in partitions)
        print(self.label, what, numbers, file=sys.stderr, flush=True)
