"""A consumer wrapper whose listener keeps its own bookkeeping on a rebalance and then chains to
the listener its user handed in (REAL_WORLD.md: "frameworks that forward client callbacks to
user hooks, or take a rebalance_listener= argument"; tests/codemods/fixtures/chained_listener.py):
``TrackingListener`` records the partitions the member owns and how many changes it saw, then
calls ``self.inner.on_partitions_*(partitions)``. ``consume()`` registers it with
``subscribe([topic], listener=TrackingListener(rebalance_listener))``. Auto-commit is off and
the wrapper commits nothing: whatever keeps a handover exactly-once is the user's listener, so
the chained call must reach it, with what it takes.
tests/integration/test_migrated_shapes_on_broker_9.py migrates it and runs the result against
the broker, chaining to a kafka-python ``ConsumerRebalanceListener`` and to a rebalance_guard
``RebalanceListener``."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.structs import TopicPartition

log = logging.getLogger(__name__)


class TrackingListener(ConsumerRebalanceListener):
    """Keeps the member's partitions up to date, then hands the change to the user's listener."""

    def __init__(self, inner: ConsumerRebalanceListener | None = None) -> None:
        self.inner = inner
        self.owned: set[TopicPartition] = set()
        self.changes = 0

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.owned -= set(revoked)
        self.changes += 1
        log.info("partitions revoked %s", sorted(revoked))
        if self.inner is not None:
            self.inner.on_partitions_revoked(revoked)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)
        self.changes += 1
        log.info("partitions assigned %s", sorted(assigned))
        if self.inner is not None:
            self.inner.on_partitions_assigned(assigned)


def consume(
    consumer: KafkaConsumer,
    topic: str,
    handle: Callable[[Any], None],
    stopping: threading.Event,
    rebalance_listener: ConsumerRebalanceListener | None = None,
) -> None:
    consumer.subscribe([topic], listener=TrackingListener(rebalance_listener))
    try:
        while not stopping.is_set():
            for records in consumer.poll(timeout_ms=100).values():
                for record in records:
                    handle(record)
    finally:
        consumer.close()
