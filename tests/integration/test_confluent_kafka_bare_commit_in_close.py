"""A bare ``commit()`` on the view in the revocation that librdkafka's ``close()`` runs must not
stall ``close()`` (found by test_migrated_shapes_on_broker_2.py, 2026-11-27: it took 10.0 s).

The codemod migrates every confluent program to ``subscribe(consumer, topics, listener)`` on
the user's plain ``confluent_kafka.Consumer``, whose ``close()`` is librdkafka's: its revocation
runs inside the close. The view's bare ``commit()`` also commits the start offset of each owned
partition nothing was consumed from and nothing is committed for (Java's ``commitSync()``), for
which it asks librdkafka's committed offsets; librdkafka answers no offset fetch from inside its
own close (every other call answers at once), and no callback can tell that revocation from a
rebalance's. So a revocation waits ``REVOCATION_FETCH_TIMEOUT_S`` (1 s) for them, not the 10 s
an assignment waits, then goes on as raw confluent does (_confluent_common.py). Nothing consumed
since the assignment is enough to get there: an idle partition, or an eager rebalance with no
new messages since. Raw confluent-kafka closes at once (its bare ``commit(asynchronous=False)``
raises ``_NO_OFFSET``); rebalance_guard's drop-in ``Consumer`` revokes before librdkafka's close
(and commits the start offsets there). Here: an empty topic, assigned, closed.
"""

from __future__ import annotations

import time
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import KafkaException, TopicPartition
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    subscribe,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import config

#: raw confluent closes in milliseconds; 10 s is the view's committed() timeout
CLOSE_S = 3.0


class BareCommit(RebalanceListener):
    def __init__(self) -> None:
        self.assigned = False
        self.commits: list[Any] = []

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.assigned = True

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.commits.append(consumer.commit())


def _close_seconds(consumer: confluent_kafka.Consumer, assigned: Any) -> float:
    deadline = time.monotonic() + 60
    while not assigned():
        assert time.monotonic() < deadline, "never assigned"
        consumer.poll(0.1)
    started = time.monotonic()
    consumer.close()
    return time.monotonic() - started


def test_raw_confluent_closes_at_once(broker: Broker) -> None:
    """The oracle: the same program on raw confluent-kafka callbacks."""
    topic = broker.create_topic(2)
    consumer = confluent_kafka.Consumer(config(broker, protocol="eager"))
    state = {"assigned": False, "error": None}

    def on_assign(c: Any, partitions: Any) -> None:
        state["assigned"] = True

    def on_revoke(c: Any, partitions: Any) -> None:
        try:
            c.commit(asynchronous=False)
        except KafkaException as exc:  # _NO_OFFSET: nothing consumed
            state["error"] = exc.args[0].code()

    consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
    assert _close_seconds(consumer, lambda: state["assigned"]) < CLOSE_S
    assert state["error"] == confluent_kafka.KafkaError._NO_OFFSET


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
@pytest.mark.parametrize("kind", ["plain_consumer_subscribe", "drop_in_consumer"])
def test_bare_commit_in_the_closing_revocation_does_not_stall_close(
    broker: Broker, kind: str, protocol: str
) -> None:
    """``plain_consumer_subscribe`` (what every migrated confluent program runs) took 10.0 s
    before the revocation's shorter wait; ``drop_in_consumer`` revokes before librdkafka's
    close, and commits the start offsets there."""
    topic = broker.create_topic(2)
    conf = config(broker, protocol=protocol)
    listener = BareCommit()
    if kind == "drop_in_consumer":
        consumer: confluent_kafka.Consumer = Consumer(conf)
        subscribe(consumer, [topic], listener)
    else:
        consumer = confluent_kafka.Consumer(conf)
        subscribe(consumer, [topic], listener)
    took = _close_seconds(consumer, lambda: listener.assigned)
    assert len(listener.commits) == 1  # the closing revocation ran the commit once
    assert took < CLOSE_S, f"close() took {took:.1f} s (raw confluent: milliseconds)"
