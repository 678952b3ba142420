"""Issue 2 item 4(b): seek in on_partitions_assigned to offsets kept outside Kafka.

The group never commits to Kafka: the listener saves the next offset of every revoked
partition in an external store (a dict standing in for a database) and seeks there on
assignment. The first member resumes exactly at the stored offsets; after a second member
joins, each partition continues exactly where the store says. The second round of messages
is written only then, so a missing or wrong seek would re-read the first round or skip:
no gap, no repeat.
"""

from __future__ import annotations

from typing import Any

import pytest
from kafka import TopicPartition
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import fleet, make_consumer, produce

pytestmark = pytest.mark.kafka_python

PER_PARTITION = 20  # per partition and per round


class OffsetsOutsideKafka(RebalanceListener):
    def __init__(self, store: dict[TopicPartition, int], seen: list[tuple[int, int]]) -> None:
        self.store = store
        self.seen = seen
        self.positions: dict[TopicPartition, int] = {}

    def process(self, _consumer: Any, records: dict[TopicPartition, list[Any]]) -> None:
        for tp, batch in records.items():
            self.seen.extend((tp.partition, record.offset) for record in batch)
            self.positions[tp] = batch[-1].offset + 1

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        for tp in partitions:
            if tp in self.positions:
                self.store[tp] = self.positions.pop(tp)

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        for tp in partitions:
            consumer.seek(tp, self.store.get(tp, 0))
            self.positions.pop(tp, None)


def test_seek_on_assign_resumes_exactly_at_the_external_offsets(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    produce(broker.bootstrap, topic, range(2 * PER_PARTITION), partitions=2)  # offsets 0-19
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    store = {tp0: 7, tp1: 3}
    seen: list[tuple[int, int]] = []
    group_id = broker.group()

    with fleet() as group:
        first_listener = OffsetsOutsideKafka(store, seen)
        first = make_consumer(broker.bootstrap, group_id, max_poll_records=4)
        set_rebalance_listener(first, first_listener)
        first.subscribe([topic])
        group.add(first, first_listener.process)
        group.until(lambda: {p for p, _ in seen} == {0, 1}, "records from both partitions")
        assert min(o for p, o in seen if p == 0) == 7
        assert min(o for p, o in seen if p == 1) == 3
        first_round = PER_PARTITION - 7 + PER_PARTITION - 3
        group.until(lambda: len(seen) >= first_round, "the first round")

        second_listener = OffsetsOutsideKafka(store, seen)
        second = make_consumer(broker.bootstrap, group_id, max_poll_records=4)
        set_rebalance_listener(second, second_listener)
        second.subscribe([topic])
        group.add(second, second_listener.process)
        group.until(lambda: group.balanced(2), "two members")
        assert store == {tp0: PER_PARTITION, tp1: PER_PARTITION}  # saved on revoke
        produce(broker.bootstrap, topic, range(2 * PER_PARTITION), partitions=2)  # 20-39
        expected = [(0, o) for o in range(7, 2 * PER_PARTITION)] + [
            (1, o) for o in range(3, 2 * PER_PARTITION)
        ]
        group.until(lambda: len(seen) >= len(expected), "every record after the stored offsets")
        group.settle()
        with group.holding(first):
            assert first.committed(tp0) is None and first.committed(tp1) is None  # not Kafka

    assert sorted(seen) == expected  # resumed exactly: nothing skipped, nothing repeated
