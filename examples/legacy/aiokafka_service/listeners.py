"""The service's rebalance listener: commits the processed offsets before partitions move."""

from __future__ import annotations

import sys
from collections.abc import Set as AbstractSet

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commit the processed offsets before partitions are handed to another member."""

    def __init__(self, consumer: AIOKafkaConsumer, label: str) -> None:
        self.consumer = consumer
        self.label = label

    async def on_partitions_revoked(self, revoked: AbstractSet[TopicPartition]) -> None:
        # Everything getmany() returned has been processed: commit the positions (aiokafka
        # refuses a commit with nothing assigned, as on the first join).
        if revoked:
            await self.consumer.commit()
        log(self.label, "revoked", revoked)

    async def on_partitions_lost(self, lost: AbstractSet[TopicPartition]) -> None:
        # Already owned by another member: committing would fail, so just let go (aiokafka
        # itself never calls it).
        log(self.label, "lost", lost)

    async def on_partitions_assigned(self, assigned: AbstractSet[TopicPartition]) -> None:
        log(self.label, "assigned", assigned)


def log(label: str, what: str, partitions: AbstractSet[TopicPartition]) -> None:
    numbers = sorted(tp.partition for tp in partitions)
    print(label, what, numbers, file=sys.stderr, flush=True)
