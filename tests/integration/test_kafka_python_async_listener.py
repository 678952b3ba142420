"""kafka-python 3 async listeners through rebalance_guard (issue 25 item 2), on the broker.

What users of kafka-python 3's ``AsyncConsumerRebalanceListener`` write, as an
:class:`AsyncRebalanceListener`: ``await consumer.commit()`` (bare and with offsets) on
revoke, ``seek`` on assign, slow work of their own awaited while the IO loop heartbeats;
eager and cooperative; nothing lost or duplicated while members join and leave; the view
expires after the callback. kafka-python 2 has no IO loop: the listener is refused there.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from kafka import TopicPartition
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.kafka_python import (
    AsyncRebalanceConsumer,
    AsyncRebalanceListener,
    set_rebalance_listener,
    to_thread,
)

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import (
    KP3,
    fleet,
    make_consumer,
    partitions_of,
    produce,
)
from tests.integration.test_kafka_python_commit_on_revoke import (
    Processed,
    exactly_once_across_rebalances,
)

pytestmark = pytest.mark.kafka_python

PARTITIONS = 4
KP2_REASON = "kafka-python 2 has no IO loop to await callbacks on: refused (test_kp2_refuses)"


class CommitOnRevoke(Processed, AsyncRebalanceListener):
    """On revoke, awaits a commit of what it processed (bare, or its offsets)."""

    async def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        self._event("assigned", partitions)

    async def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        self._event("revoked", partitions)
        offsets = self.offsets(partitions)
        if self.bare:  # KIP-1306's example: the revoked partitions are still assigned
            assert partitions <= consumer.assignment()
            await consumer.commit()
            self.commits += 1
        elif offsets:
            await consumer.commit(offsets)
            self.commits += 1

    async def on_partitions_lost(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        self._event("lost", partitions)
        self.offsets(partitions)  # owned elsewhere already: committing would fail


@pytest.mark.parametrize("commit", ["bare", "explicit"])
@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_every_message_processed_once_across_rebalances(
    broker: Broker, protocol: str, commit: str
) -> None:
    """The sync listener's scenario (test_kafka_python_commit_on_revoke), awaiting the view."""
    if not KP3:
        pytest.skip(KP2_REASON)
    exactly_once_across_rebalances(
        broker, protocol, lambda processed: CommitOnRevoke(processed, bare=commit == "bare")
    )


class SeekOnAssign(AsyncRebalanceListener):
    """Seeks every assigned partition to an offset kept outside Kafka; keeps its views."""

    def __init__(self, store: dict[TopicPartition, int]) -> None:
        self.store = store
        self.positions: dict[TopicPartition, int | None] = {}
        self.views: list[AsyncRebalanceConsumer] = []

    async def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        self.views.append(consumer)
        for tp in partitions:
            consumer.seek(tp, self.store[tp])
            self.positions[tp] = await consumer.position(tp)


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_seek_on_assign_and_the_view_expires(broker: Broker, protocol: str) -> None:
    if not KP3:
        pytest.skip(KP2_REASON)
    topic = broker.create_topic(partitions=2)
    produce(broker.bootstrap, topic, range(40), partitions=2)  # offsets 0-19 each
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    listener = SeekOnAssign({tp0: 7, tp1: 3})
    seen: list[tuple[int, int]] = []

    def process(_consumer: Any, records: dict[TopicPartition, list[Any]]) -> None:
        seen.extend((tp.partition, r.offset) for tp, batch in records.items() for r in batch)

    with fleet() as group:
        consumer = make_consumer(broker.bootstrap, broker.group(), protocol)
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        group.add(consumer, process)
        group.until(lambda: len(seen) >= 13 + 17, "the records after the seeks")
        group.settle()

    assert sorted(seen) == [(0, o) for o in range(7, 20)] + [(1, o) for o in range(3, 20)]
    assert listener.positions == {tp0: 7, tp1: 3}
    view = listener.views[0]
    with pytest.raises(RebalanceViewExpiredError, match=r"seek\(\) .*on_partitions_assigned"):
        view.seek(tp0, 0)
    with pytest.raises(RebalanceViewExpiredError, match=r"position\(\) .*on_partitions_assigned"):
        view.position(tp0)  # refused when called, before any coroutine exists


class SlowRevoke(AsyncRebalanceListener):
    """Awaits slow work of its own (longer than the session timeout), then commits."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.committed: list[dict[TopicPartition, int | None]] = []
        self.lost: list[set[TopicPartition]] = []

    async def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        if not partitions:
            return
        await to_thread(time.sleep, self.seconds)  # a database flush, say
        await consumer.commit({tp: OffsetAndMetadata(5, "", -1) for tp in partitions})
        self.committed.append({tp: await consumer.committed(tp) for tp in partitions})

    async def on_partitions_lost(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        self.lost.append(partitions)


def test_heartbeats_go_on_while_a_callback_awaits_slow_work(broker: Broker) -> None:
    """8 s of awaited work in a revocation with a 6 s session timeout: the member stays."""
    if not KP3:
        pytest.skip(KP2_REASON)
    topic = broker.create_topic(partitions=2)
    produce(broker.bootstrap, topic, range(20), partitions=2)
    group_id = broker.group()
    slow = SlowRevoke(8.0)
    with fleet() as group:
        first = make_consumer(broker.bootstrap, group_id, max_poll_interval_ms=60_000)
        set_rebalance_listener(first, slow)
        first.subscribe([topic])
        group.add(first)
        group.until(lambda: group.balanced(2), "one member")
        second = make_consumer(broker.bootstrap, group_id, max_poll_interval_ms=60_000)
        second.subscribe([topic])
        group.add(second)
        group.until(lambda: bool(slow.committed), "the slow revocation's commit", timeout=90)
        group.until(lambda: group.balanced(2), "two members")
        group.settle(2.0)
        assert slow.committed[0] == dict.fromkeys(partitions_of(topic, 2), 5)
        assert not slow.lost  # the session did not expire: the loop heartbeated meanwhile
        assert not group.poll_errors


class Failing(AsyncRebalanceListener):
    def __init__(self) -> None:
        self.assigned: list[set[TopicPartition]] = []

    async def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        self.assigned.append(partitions)
        consumer.commit()  # never awaited: an error when the callback returns
        raise ValueError("boom")


def test_a_failing_callback_reaches_poll_after_the_rebalance(broker: Broker) -> None:
    if not KP3:
        pytest.skip(KP2_REASON)
    topic = broker.create_topic(partitions=2)
    consumer = make_consumer(broker.bootstrap, broker.group())
    listener = Failing()
    try:
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        deadline = time.monotonic() + 60
        with pytest.raises(KafkaError, match="User rebalance callback") as raised:
            while time.monotonic() < deadline:
                consumer.poll(timeout_ms=200)
        assert isinstance(raised.value.__cause__, ValueError)
        assert listener.assigned == [partitions_of(topic, 2)]
        assert consumer.assignment() == partitions_of(topic, 2)  # the rebalance completed
        consumer.poll(timeout_ms=200)  # raised once
    finally:
        consumer.close(autocommit=False)


def test_kp2_refuses_an_async_listener(broker: Broker) -> None:
    if KP3:
        pytest.skip("kafka-python 3 awaits async listeners (the tests above)")
    consumer = make_consumer(broker.bootstrap, broker.group())
    try:
        with pytest.raises(TypeError, match=r"needs kafka-python >= 3.*RebalanceListener"):
            set_rebalance_listener(consumer, CommitOnRevoke([], bare=True))
    finally:
        consumer.close(autocommit=False)
