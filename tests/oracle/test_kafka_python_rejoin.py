"""kafka-python 3: a rejoin that becomes due inside ``poll()``, after rebalance_guard looked,
is still waited for (the kafka_python-eager-handoff oracle cell's flake, session 17).

kafka-python 3.0.12 decides in ``ConsumerCoordinator.poll()`` whether to join
(``need_rejoin()``), after looking up the coordinator. The adapter, which must make a join
wait inside the poll that starts it (module docstring of rebalance_guard.kafka_python), used
to decide that at the start of ``poll()``, before kafka-python did. In the oracle's handoff
scenario the metadata update that follows A's subscription change landed on the IO thread
between the two looks: kafka-python started the join under the caller's 100 ms, spent it in
the revoked callback and returned with the JoinGroup in flight. That join's own leader
assignment then made ``need_rejoin()`` false again (its metadata snapshot), so no later poll
awaited it: the member stayed in the rebalance with its partitions pending revocation (not
fetched) for good, and the drain timed out after 60 s.

This test puts the metadata update in the same place on purpose: the member's topic grows,
and the new metadata is applied while kafka-python looks up the coordinator.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import KP3, make_consumer

pytestmark = [pytest.mark.broker, pytest.mark.kafka_python]

#: The poll's timeout, and the revoked callback's duration (a commit under load): the join
#: that the poll starts cannot finish within the poll's own timeout.
POLL_MS = 100
REVOKE_S = 0.3


class Owned(RebalanceListener):
    def __init__(self) -> None:
        self.owned: set[Any] = set()

    def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
        self.owned |= set(partitions)

    def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
        time.sleep(REVOKE_S)
        self.owned -= set(partitions)


def _partitions(topic: str, count: int) -> set[Any]:
    from kafka import TopicPartition

    return {TopicPartition(topic, p) for p in range(count)}


def _grow(bootstrap: str, topic: str, count: int) -> None:
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewPartitions

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_partitions([NewPartitions(topic, count)])[topic].result(timeout=30)


def _poll_until(consumer: Any, condition: Callable[[], bool], what: str) -> None:
    """Poll as the oracle's members do, with work between polls, until ``condition``."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"timed out after 30 s waiting for {what}"
        consumer.poll(timeout_ms=POLL_MS)
        if not condition():
            time.sleep(1.0)  # processing: a join left in flight finishes meanwhile


def test_a_rejoin_due_after_the_adapter_looked_is_waited_for(broker: Broker) -> None:
    if not KP3:
        pytest.skip("kafka-python 2 has no IO thread: its joins run inside poll() itself")
    topic = broker.create_topic(partitions=2)
    consumer = make_consumer(broker.bootstrap, broker.group(), "eager")
    listener = Owned()
    try:
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        _poll_until(consumer, lambda: listener.owned == _partitions(topic, 2), "the assignment")
        coordinator = consumer._coordinator
        _grow(broker.bootstrap, topic, 4)
        assert not coordinator.need_rejoin()  # the member's metadata does not know yet
        lookup = coordinator.ensure_coordinator_ready
        landed: list[bool] = []

        def metadata_lands_now(timeout_ms: int | None = None) -> Any:
            """kafka-python's poll looks up the coordinator after the adapter looked and
            before its own ``need_rejoin()``: the IO thread applies the new metadata now."""
            found = lookup(timeout_ms=timeout_ms)
            deadline = time.monotonic() + 15
            while not coordinator.need_rejoin():
                assert time.monotonic() < deadline, "the member never saw the new partitions"
                consumer._cluster.request_update()
                time.sleep(0.05)
            landed.append(True)
            return found

        coordinator.ensure_coordinator_ready = metadata_lands_now
        try:
            consumer.poll(timeout_ms=POLL_MS)
        finally:
            del coordinator.ensure_coordinator_ready
        assert landed == [True]
        time.sleep(1.0)  # processing before the next poll, as in _poll_until
        _poll_until(consumer, lambda: listener.owned == _partitions(topic, 4),
                    "the assignment of the join that poll started")  # fmt: skip
    finally:
        consumer.close(autocommit=False)
