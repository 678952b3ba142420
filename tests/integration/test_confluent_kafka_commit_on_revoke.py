"""Issue 2, item 4a (confluent-kafka): commit on revoke through the view, nothing lost or repeated.

Three consumers in one group go through four assignments (first member, two joins, one leave)
while a producer keeps writing numbered messages. Auto-commit is off: the only commits are the
listener's, through the view, in ``on_partitions_revoked`` (and so in ``close()``). Without
them the next owner would restart from the beginning and process messages twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Message, Producer, TopicPartition
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import closing, config, number, poll_until

PARTITIONS = 6
MAX_MESSAGES = 20_000  # a slow rebalance on a busy machine must not leave a huge backlog


class CommitProcessed(RebalanceListener):
    """Commits the offsets this member processed for the partitions it is losing."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.processed: dict[int, int] = {}  # partition -> next offset to process
        self.commits = 0
        self.events: list[str] = []

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append("assigned")

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append("revoked")
        offsets = [
            TopicPartition(self.topic, p.partition, self.processed.pop(p.partition))
            for p in partitions
            if p.partition in self.processed
        ]
        if offsets:
            consumer.commit(offsets=offsets)  # synchronous on the view
            self.commits += 1


class FetchStalled(AssertionError):
    """librdkafka stopped delivering a partition's messages after the last rebalance."""


def _assert_none_twice(processed: list[int]) -> None:
    twice = [n for n, count in Counter(processed).items() if count > 1]
    assert not twice, f"processed more than once: {twice[:20]} ({len(twice)} in all)"


# Observed on the 2-core CI box: after the last eager rebalance, librdkafka 2.16 against tansu
# sometimes stops delivering one partition (its fetcher sits at the log end while position()
# stays behind; a fresh consumer reads those messages fine). The same scenario with plain
# confluent callbacks and no rebalance_guard stalled in 6 of 17 runs, so it is not the adapter.
# Only that stall is expected to fail; a duplicate or anything else still fails the test.
EAGER_STALL = pytest.mark.xfail(
    raises=FetchStalled,
    strict=False,
    reason="librdkafka 2.16 + tansu: a partition's fetcher can stall after an eager rebalance "
    "(reproduced without rebalance_guard)",
)


@pytest.mark.parametrize(
    "strategy", [pytest.param("range", marks=EAGER_STALL), "cooperative-sticky"]
)
def test_every_message_processed_once_across_rebalances(broker: Broker, strategy: str) -> None:
    topic = broker.create_topic(PARTITIONS)
    group = broker.group()
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
    produced = 0
    processed: list[int] = []
    distinct: set[int] = set()
    members: dict[Consumer, CommitProcessed] = {}
    active: list[Consumer] = []

    def join() -> None:
        consumer = Consumer(config(broker, group, **{"partition.assignment.strategy": strategy}))
        listener = CommitProcessed(topic)
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        members[consumer] = listener
        active.append(consumer)

    def process(consumer: Consumer, message: Message[Any, Any]) -> None:
        processed.append(number(message))
        distinct.add(processed[-1])
        members[consumer].processed[message.partition() or 0] = (message.offset() or 0) + 1

    def balanced() -> bool:
        """Keep producing; true once every active member owns part of a complete assignment."""
        nonlocal produced
        for _ in range(5 if produced < MAX_MESSAGES else 0):
            producer.produce(topic, str(produced).encode(), partition=produced % PARTITIONS)
            produced += 1
        producer.poll(0)
        owned = [{p.partition for p in c.assignment()} for c in active]
        return all(owned) and sum(map(len, owned)) == PARTITIONS == len(set().union(*owned))

    def rebalanced() -> Callable[[], bool]:
        before = sum(len(li.events) for li in members.values())
        return lambda: balanced() and sum(len(li.events) for li in members.values()) > before

    join()
    with closing(members):
        poll_until(active, balanced, process, what="first member assigned")
        for change in ("join", "join", "leave"):
            if change == "join":
                join()
            else:
                leaving = active.pop(0)
                leaving.close()  # its revoke callback commits what it processed
            poll_until(active, rebalanced(), process, what=f"rebalance after {change}")
        assert producer.flush(30) == 0
        try:
            poll_until(active, lambda: len(distinct) >= produced, process, what="drain")
        except AssertionError as exc:
            _assert_none_twice(processed)  # what was processed must still be exactly once
            missing = sorted(set(range(produced)) - distinct)
            first_missing = {n % PARTITIONS: n // PARTITIONS for n in reversed(missing)}
            positions = [
                {p.partition: p.offset for p in c.position(c.assignment())} for c in active
            ]
            raise FetchStalled(
                f"{exc}: {len(missing)} of {produced} never delivered, first missing offset per "
                f"partition {first_missing}; positions {positions}; "
                f"callbacks {[li.events for li in members.values()]}"
            ) from None

    _assert_none_twice(processed)
    assert sorted(processed) == list(range(produced))
    assert sum(li.commits for li in members.values()) >= 3
    assert produced > 100
