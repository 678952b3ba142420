"""A kafka-python listener whose revocation reaches the consumer through a module global, not
a parameter (held_out_9 026): ``consumer = None`` at module level, set in ``main()`` (``global
consumer``) before ``consumer.subscribe([topic], listener=Listener())``, and the revocation's
commit guarded by a None test, ``if pending and consumer is not None: consumer.commit(pending)``.
Auto-commit is off and nothing else commits, so that guarded commit of the offsets the loop
processed of the revoked partitions is what keeps a handover exactly-once.
tests/integration/test_migrated_shapes_on_broker_7.py migrates it and runs the result against
the broker (each member loads it on its own, as its own process would: one global each)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata
from kafka.structs import TopicPartition

consumer = None
#: the next offset to process of each partition, as far as the loop got
processed: dict[TopicPartition, int] = {}


class Listener(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.owned: set[TopicPartition] = set()

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        pending = {
            tp: OffsetAndMetadata(processed.pop(tp), "", -1) for tp in revoked if tp in processed
        }
        if pending and consumer is not None:
            consumer.commit(pending)
        self.owned -= set(revoked)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owned |= set(assigned)


def main(
    servers: str,
    topic: str,
    group_id: str,
    handle: Callable[[Any], None],
    stopping: threading.Event,
) -> None:
    global consumer
    consumer = KafkaConsumer(bootstrap_servers=servers, group_id=group_id, enable_auto_commit=False)
    consumer.subscribe([topic], listener=Listener())
    try:
        while not stopping.is_set():
            for tp, records in consumer.poll(timeout_ms=100).items():
                for record in records:
                    handle(record)
                    processed[tp] = record.offset + 1
    finally:
        consumer.close()
