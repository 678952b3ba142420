"""Runtime semantics 1-6 (DESIGN.md) for confluent-kafka where they depend on the broker.

Callbacks here come from librdkafka inside ``poll()``/``close()``, with a real group on the
test broker: exceptions through ``poll()``, pause surviving or being cleared, registration
timing, lost partitions, synchronous commit.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import Message, TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import (
    closing,
    new_consumer,
    number,
    partitions_of,
    poll_until,
    produce,
)

pytestmark = pytest.mark.broker


class Log(RebalanceListener):
    """Records (event, partitions) and keeps every view it got."""

    def __init__(self) -> None:
        self.events: list[tuple[str, set[int]]] = []
        self.views: list[RebalanceConsumer] = []

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append(("assigned", partitions_of(partitions)))
        self.views.append(consumer)

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append(("revoked", partitions_of(partitions)))
        self.views.append(consumer)


def test_exception_in_assigned_reaches_poll_and_rebalance_completes(broker: Broker) -> None:
    topic = broker.create_topic(2)
    produce(broker, topic, 10, 2)

    class Failing(Log):
        def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_assigned(partitions, consumer)
            consumer.seek(TopicPartition(topic, 0, 3))
            raise ValueError("assigned failed")

    listener = Failing()
    consumer = new_consumer(broker)
    set_rebalance_listener(consumer, listener)
    consumer.subscribe([topic])
    got: list[tuple[int, int]] = []
    with closing([consumer]):
        with pytest.raises(ValueError, match="assigned failed"):
            poll_until([consumer], lambda: False, what="the callback's exception")
        assert partitions_of(consumer.assignment()) == {0, 1}  # the rebalance completed
        poll_until(
            [consumer],
            lambda: len(got) == 7,  # partition 0 from offset 3 (numbers 6, 8), all 5 of 1
            lambda c, m: got.append((m.partition() or 0, m.offset() or 0)),
            what="messages after the failed callback",
        )
        assert min(o for p, o in got if p == 0) == 3  # the seek before the raise took effect
    assert listener.events == [("assigned", {0, 1}), ("revoked", {0, 1})]  # close() still ran it


def test_exception_in_revoked_reaches_poll_and_next_assignment_runs(broker: Broker) -> None:
    topic = broker.create_topic(2)

    class FailingOnce(Log):
        def on_partitions_revoked(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_revoked(partitions, consumer)
            if len(self.events) == 2:
                raise KeyError("revoked failed")

    listener = FailingOnce()
    consumer = new_consumer(broker)
    set_rebalance_listener(consumer, listener)
    consumer.subscribe([topic])
    with closing([consumer]):
        poll_until([consumer], lambda: bool(listener.events), what="first assignment")
        consumer.subscribe([topic])  # a new subscription: revoke everything, assign again
        with pytest.raises(KeyError, match="revoked failed"):
            poll_until([consumer], lambda: False, what="the callback's exception")
        poll_until([consumer], lambda: len(listener.events) == 3, what="the next assignment")
    assert listener.events[:3] == [("assigned", {0, 1}), ("revoked", {0, 1}), ("assigned", {0, 1})]


def test_views_are_new_per_callback_and_expire(broker: Broker) -> None:
    topic = broker.create_topic(1)
    listener = Log()
    consumer = new_consumer(broker)
    consumer.subscribe([topic])
    set_rebalance_listener(consumer, listener)  # after subscribe, before the first poll
    with closing([consumer]):
        poll_until([consumer], lambda: bool(listener.events), what="first assignment")
    assert len(listener.views) == 2 and listener.views[0] is not listener.views[1]
    for view, callback in zip(listener.views, ("assigned", "revoked"), strict=True):
        with pytest.raises(
            RebalanceViewExpiredError, match=rf"position\(\).*Log\.on_partitions_{callback}\(\)"
        ):
            view.position([TopicPartition(topic, 0)])


def test_registration_replace_and_remove_take_effect_from_next_poll(broker: Broker) -> None:
    topic = broker.create_topic(1)
    first, second = Log(), Log()
    consumer = new_consumer(broker)
    set_rebalance_listener(consumer, first)
    consumer.subscribe([topic])
    with closing([consumer]):
        poll_until([consumer], lambda: bool(first.events), what="first assignment")
        set_rebalance_listener(consumer, second)  # replace
        consumer.subscribe([topic])  # keeps the registered listener, triggers a rebalance
        poll_until([consumer], lambda: len(second.events) == 2, what="rebalance after replace")
        set_rebalance_listener(consumer, None)  # remove: confluent's own default from now on
        consumer.close()
    assert first.events == [("assigned", {0})]
    assert second.events == [("revoked", {0}), ("assigned", {0})]


@pytest.mark.parametrize("strategy", ["range", "cooperative-sticky"])
def test_pause_in_assigned_persists_and_pause_on_revoked_is_cleared(
    broker: Broker, strategy: str
) -> None:
    """librdkafka itself would keep partition 1 paused when it comes back (both protocols)."""
    topic = broker.create_topic(2)
    produce(broker, topic, 20, 2)

    class PauseOnce(Log):
        def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_assigned(partitions, consumer)
            if len(self.events) == 1:
                consumer.pause([TopicPartition(topic, 1)])  # before librdkafka assigned it

    listener = PauseOnce()
    consumer = new_consumer(broker, **{"partition.assignment.strategy": strategy})
    set_rebalance_listener(consumer, listener)
    consumer.subscribe([topic])
    seen: list[Message[Any, Any]] = []
    with closing([consumer]):

        def from_partition(p: int) -> list[int]:
            return [number(m) for m in seen if m.partition() == p]

        poll_until([consumer], lambda: len(from_partition(0)) == 10, lambda c, m: seen.append(m))
        produce(broker, topic, 2, 1, start=100)  # later messages on 0 arrive; 1 stays paused
        poll_until([consumer], lambda: len(from_partition(0)) == 12, lambda c, m: seen.append(m))
        assert from_partition(1) == []
        consumer.unsubscribe()  # everything revoked (from the next poll) ...
        consumer.subscribe([topic])  # ... and assigned again
        poll_until([consumer], lambda: len(from_partition(1)) == 10, lambda c, m: seen.append(m))
    assert [e for e, _ in listener.events[:3]] == ["assigned", "revoked", "assigned"]


def test_commit_on_view_is_synchronous(broker: Broker) -> None:
    topic = broker.create_topic(1)
    results: list[object] = []

    class Committing(Log):
        def on_partitions_revoked(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_revoked(partitions, consumer)
            if results:
                return  # the close() at the end: librdkafka times out committed() there
            results.append(consumer.commit(offsets=[TopicPartition(topic, 0, 7)]))
            results.append(consumer.committed([TopicPartition(topic, 0)], timeout=30)[0].offset)
            later = [TopicPartition(topic, 0, 9)]
            results.append(consumer.commit(offsets=later, asynchronous=True))

    listener = Committing()
    consumer = new_consumer(broker)
    set_rebalance_listener(consumer, listener)
    consumer.subscribe([topic])
    with closing([consumer]):
        poll_until([consumer], lambda: bool(listener.events), what="first assignment")
        consumer.subscribe([topic])  # revoke (while still in the group) and assign again
        poll_until([consumer], lambda: len(listener.events) == 3, what="the rebalance")
    committed, offset, asynchronous = results
    assert isinstance(committed, list) and committed[0].offset == 7  # returned when done
    assert offset == 7
    assert asynchronous is None  # confluent's asynchronous commit when asked for


def test_lost_partitions_default_to_revoked(broker: Broker) -> None:
    """Stop polling past max.poll.interval.ms: librdkafka leaves the group, partitions are lost."""
    topic = broker.create_topic(1)

    class Overriding(Log):
        def on_partitions_lost(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            self.events.append(("lost", partitions_of(partitions)))

    default, overriding = Log(), Overriding()
    timeouts = {"session.timeout.ms": 6000, "max.poll.interval.ms": 6000}
    consumers: list[Consumer] = []
    for listener in (default, overriding):
        consumer = new_consumer(broker, **timeouts)
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        consumers.append(consumer)
    with closing(consumers):
        for consumer, listener in zip(consumers, (default, overriding), strict=True):
            poll_until([consumer], partial(bool, listener.events), what="assignment")
        time.sleep(8)  # the trigger itself: no poll for longer than max.poll.interval.ms
        poll_until(
            consumers,
            lambda: len(default.events) >= 2 and len(overriding.events) >= 2,
            what="the lost callbacks",
        )
    assert default.events[1] == ("revoked", {0})
    assert overriding.events[1] == ("lost", {0})


def test_exception_in_revoked_during_close_reaches_close(broker: Broker) -> None:
    """close() runs the last revocation; its exception comes out of close(), which completes."""
    topic = broker.create_topic(1)

    class FailingOnClose(Log):
        def on_partitions_revoked(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_revoked(partitions, consumer)
            raise OSError("revoke failed in close")

    listener = FailingOnClose()
    consumer = new_consumer(broker)
    set_rebalance_listener(consumer, listener)
    consumer.subscribe([topic])
    with closing([consumer]):
        poll_until([consumer], lambda: bool(listener.events), what="first assignment")
        with pytest.raises(OSError, match="revoke failed in close"):
            consumer.close()
        with pytest.raises(RuntimeError, match="closed"):
            consumer.poll(0)
    assert listener.events == [("assigned", {0}), ("revoked", {0})]


def test_confluent_callbacks_through_consumer_run_as_in_confluent(broker: Broker) -> None:
    """Legacy code on the subclass: on_assign gets the consumer itself and may assign()."""
    topic = broker.create_topic(2)
    produce(broker, topic, 10, 2)
    received: list[object] = []

    def on_assign(consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]) -> None:
        received.append(consumer)
        consumer.assign([TopicPartition(topic, p.partition, 3) for p in partitions])

    consumer = new_consumer(broker)
    consumer.subscribe([topic], on_assign=on_assign)
    offsets: list[tuple[int, int]] = []
    with closing([consumer]):
        poll_until(
            [consumer],
            lambda: len(offsets) == 4,  # offsets 3 and 4 of each partition
            lambda c, m: offsets.append((m.partition() or 0, m.offset() or 0)),
            what="messages from the offsets on_assign chose",
        )
    assert received == [consumer]
    assert sorted(offsets) == [(0, 3), (0, 4), (1, 3), (1, 4)]
