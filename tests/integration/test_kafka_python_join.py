"""kafka-python 3 must not throw away a finished JoinGroup/SyncGroup (see the module docstring
of rebalance_guard.kafka_python): a member that polls with a short timeout and does some
work between polls, as real consumers do, still applies every generation it joins.

Without the adapter's wait, kafka-python 3.0.12 replaces a round trip that finished between
two polls with a new JoinGroup, so the group keeps rebalancing and members re-join many
times for one change of membership.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import KP3, make_consumer

pytestmark = pytest.mark.kafka_python

PARTITIONS = 4


class Assigned(RebalanceListener):
    def __init__(self) -> None:
        self.assigned: set[Any] = set()

    def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
        self.assigned |= set(partitions)

    def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
        self.assigned -= set(partitions)


class JoinCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.joins = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("(Re-)joining group"):
            self.joins += 1


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_slow_pollers_apply_every_join(broker: Broker, protocol: str) -> None:
    if not KP3:
        pytest.skip("kafka-python 2 keeps a finished join's result for the next poll")
    topic = broker.create_topic(partitions=PARTITIONS)
    group = broker.group()
    counter = JoinCounter()
    coordinator_log = logging.getLogger("kafka.coordinator")
    coordinator_log.addHandler(counter)
    coordinator_log.setLevel(logging.INFO)
    stop = threading.Event()
    listeners = [Assigned(), Assigned()]
    consumers = [make_consumer(broker.bootstrap, group, protocol) for _ in listeners]
    errors: list[BaseException] = []

    def run(consumer: Any) -> None:
        while not stop.is_set():
            try:
                consumer.poll(timeout_ms=20)
            except BaseException as exc:
                errors.append(exc)
                return
            time.sleep(0.3)  # processing between polls: the join finishes meanwhile

    threads = []
    try:
        for consumer, listener in zip(consumers, listeners, strict=True):
            set_rebalance_listener(consumer, listener)
            consumer.subscribe([topic])
            threads.append(threading.Thread(target=run, args=(consumer,), daemon=True))
            threads[-1].start()
            time.sleep(1.0)
        deadline = time.monotonic() + 45
        while not (
            all(len(listener.assigned) == PARTITIONS // 2 for listener in listeners)
            and not set.intersection(*(listener.assigned for listener in listeners))
        ):
            assert not errors, errors
            assert time.monotonic() < deadline, f"never balanced: {counter.joins} joins"
            time.sleep(0.1)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        for consumer in consumers:
            consumer.close(autocommit=False)
        coordinator_log.removeHandler(counter)
    # Apache Kafka answers a new member's first JoinGroup with its member id (KIP-394), so
    # each member joins twice to get in; the first rejoins once when the second arrives; the
    # cooperative follow-up round (KIP-429) makes both rejoin once more.
    expected = 2 * len(consumers) + 1 + (len(consumers) if protocol == "cooperative" else 0)
    assert counter.joins <= expected, f"{counter.joins} JoinGroups for one membership change"
