"""Runtime semantics 1-5 of rebalance_guard.kafka_python with real consumers on the real broker.

Covers: a fresh view per callback that expires; legacy listeners unchanged; callback errors
reaching poll() while the rebalance completes; lost defaulting to revoked; pause persisting
from on_partitions_assigned and cleared on revocation; set_rebalance_listener before or
after subscribe(), replaced, removed, effective from the next poll; bad input.

Where kafka-python 2 and 3 truly differ (the thread a callback runs on, whether the client
has a lost callback at all) the test says so and branches on ``KP3``.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from kafka import ConsumerRebalanceListener
from kafka.errors import KafkaError
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.kafka_python import (
    KafkaPythonRebalanceView,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import (
    KP3,
    Fleet,
    fleet,
    make_consumer,
    partitions_of,
    produce,
)

pytestmark = [pytest.mark.kafka_python, pytest.mark.broker]


class Recorder(RebalanceListener):
    """Records (callback, partitions, view, thread) and what the view saw inside it."""

    def __init__(self, fail: str | None = None) -> None:
        self.events: list[tuple[str, frozenset[Any], Any, str]] = []
        self.inside: list[set[Any]] = []
        self.fail = fail

    def _record(self, name: str, partitions: Any, consumer: Any) -> None:
        self.events.append((name, frozenset(partitions), consumer, threading.current_thread().name))
        self.inside.append(consumer.assignment())
        if name == self.fail:
            self.fail = None  # once
            raise ValueError(f"boom in {name}")

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        self._record("assigned", partitions, consumer)

    def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
        self._record("revoked", partitions, consumer)

    def names(self) -> list[str]:
        return [e[0] for e in self.events]


def joined(broker: Broker, group: Fleet, listener: Any, topic: str, before: bool = True) -> Any:
    """A consumer subscribed to ``topic`` with ``listener`` set before or after subscribe()."""
    consumer = make_consumer(broker.bootstrap, broker.group())
    if before:
        set_rebalance_listener(consumer, listener)
    consumer.subscribe([topic])
    if not before:
        set_rebalance_listener(consumer, listener)
    group.add(consumer)
    group.until(lambda: consumer.assignment(), "the first assignment")
    group.settle()  # the assigned callback runs just after the assignment becomes visible
    return consumer


def test_each_callback_gets_a_fresh_view_that_expires(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    listener = Recorder()
    with fleet() as group:
        joined(broker, group, listener, topic)
        events = list(listener.events)  # (kafka-python 3 revokes again on close)
    # The first join revokes nothing, then assigns everything.
    assert [(name, parts) for name, parts, _, _ in events] == [
        ("revoked", frozenset()),
        ("assigned", frozenset(partitions_of(topic, 2))),
    ]
    (_, _, revoked_view, _), (_, _, assigned_view, thread) = events
    assert isinstance(assigned_view, KafkaPythonRebalanceView)
    assert revoked_view is not assigned_view
    assert listener.inside[1] == partitions_of(topic, 2)  # the view worked inside the callback
    # kafka-python 3 calls listeners on its IO thread; the guard moves them to a worker.
    assert thread.startswith("rebalance-guard-") if KP3 else thread == "poller"
    with pytest.raises(RebalanceViewExpiredError) as info:
        assigned_view.assignment()
    assert "assignment() called on the rebalance view after " in str(info.value)
    assert "Recorder.on_partitions_assigned() returned" in str(info.value)


def test_set_after_subscribe_works_too(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    listener = Recorder()
    with fleet() as group:
        joined(broker, group, listener, topic, before=False)
        assert listener.names() == ["revoked", "assigned"]


# Rebalances below come from a second member joining or leaving, not from subscription
# changes: kafka-python 2.3 loses the assignment of a subscription-change rejoin that outlasts
# one poll() (seen on tansu, and by the oracle on Apache Kafka: tests/oracle).


def test_replace_remove_and_subscribe_take_effect_from_the_next_poll(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    old, new = Recorder(), Recorder()
    with fleet() as group:
        consumer = joined(broker, group, old, topic)
        with group.holding(consumer):
            set_rebalance_listener(consumer, new)
            assert new.events == []  # registering calls nothing; the next poll's rebalance does
            consumer.subscribe([topic])  # no listener=: the registered one stays
        other = make_consumer(broker.bootstrap, consumer.config["group_id"])
        other.subscribe([topic])
        group.add(other)
        group.until(lambda: group.balanced(2), "two members")
        group.settle()
        assert old.names() == ["revoked", "assigned"]
        assert new.names() == ["revoked", "assigned"]
        assert new.events[1][1] == frozenset(consumer.assignment())

        with group.holding(consumer):
            set_rebalance_listener(consumer, None)
        group.remove(other)
        other.close()
        group.until(lambda: group.balanced(2), "one member again")
        assert len(old.events) == 2 and len(new.events) == 2  # removed: nobody was called


def test_subscribe_with_an_explicit_listener_replaces_the_registered_one(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    registered, legacy = Recorder(), Legacy()
    with fleet() as group:
        consumer = joined(broker, group, registered, topic)
        with group.holding(consumer):
            consumer.subscribe([topic], listener=legacy)  # kafka-python's own API, as before
        other = make_consumer(broker.bootstrap, consumer.config["group_id"])
        other.subscribe([topic])
        group.add(other)
        group.until(lambda: group.balanced(2), "two members")
        group.settle()
        with group.holding(consumer):
            consumer.subscribe([topic])  # kafka-python semantics: this drops the legacy listener
        group.remove(other)
        other.close()
        group.until(lambda: group.balanced(2), "one member again")
        assert registered.names() == ["revoked", "assigned"]
        assert [name for name, _, _ in legacy.calls] == ["revoked", "assigned"]


class Legacy(ConsumerRebalanceListener):
    """kafka-python's own one-arg listener."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, frozenset[Any], str]] = []

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.calls.append(("revoked", frozenset(revoked), threading.current_thread().name))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.calls.append(("assigned", frozenset(assigned), threading.current_thread().name))


def test_legacy_listener_is_registered_unchanged(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    legacy = Legacy()
    with fleet() as group:
        joined(broker, group, legacy, topic)
        calls = list(legacy.calls)
    assert [(name, parts) for name, parts, _ in calls] == [
        ("revoked", frozenset()),
        ("assigned", frozenset(partitions_of(topic, 2))),
    ]
    # Unchanged includes the client's threading: kafka-python 3's IO thread, 2's polling thread.
    threads = {thread for _, _, thread in calls}
    assert all(t.startswith("kafka-io-") for t in threads) if KP3 else threads == {"poller"}


def test_one_arg_methods_on_a_new_style_listener_get_no_view(broker: Broker) -> None:
    topic = broker.create_topic(partitions=1)
    calls: list[tuple[Any, ...]] = []

    class OneArg(RebalanceListener):
        def on_partitions_assigned(self, partitions: Any) -> None:  # type: ignore[override]
            calls.append(("assigned", frozenset(partitions)))

    with fleet() as group:
        joined(broker, group, OneArg(), topic)
        assert calls == [("assigned", frozenset(partitions_of(topic, 1)))]


@pytest.mark.parametrize("failing", ["revoked", "assigned"])
def test_callback_error_reaches_poll_once_and_the_rebalance_completes(
    broker: Broker, failing: str
) -> None:
    topic = broker.create_topic(partitions=2)
    listener = Recorder(fail=failing)
    with fleet() as group:
        consumer = make_consumer(broker.bootstrap, broker.group())
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        group.add(consumer)
        group.until(lambda: consumer.assignment(), "the assignment despite the error")
        group.settle()
        assert [type(exc) for _, exc in group.poll_errors] == [KafkaError]  # once, not per poll
        cause = group.poll_errors[0][1].__cause__
        assert isinstance(cause, ValueError) and str(cause) == f"boom in {failing}"
        assert listener.names() == ["revoked", "assigned"]  # the other callback still ran
        assert consumer.assignment() == partitions_of(topic, 2)


def test_lost_partitions_go_to_on_partitions_lost_which_defaults_to_revoked(
    broker: Broker,
) -> None:
    topic = broker.create_topic(partitions=1)
    listener = Recorder()
    with fleet() as group:
        consumer = make_consumer(broker.bootstrap, broker.group(), max_poll_interval_ms=3_000)
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        group.add(consumer)
        group.until(lambda: consumer.assignment(), "the first assignment")
        with group.holding(consumer):
            time.sleep(4.5)  # miss max_poll_interval_ms: the member is evicted from the group
        group.until(lambda: len(listener.events) >= 4, "eviction and the second assignment")
    name, parts, view, _ = listener.events[2]
    assert (name, parts) == ("revoked", frozenset(partitions_of(topic, 1)))
    # kafka-python 3 reports eviction as lost (KIP-429); kafka-python 2 revokes on the rejoin
    # and the adapter dispatches that to lost (the member has no generation), as Java does.
    # Recorder does not override on_partitions_lost, so it reaches revoked (hence the name).
    assert "Recorder.on_partitions_lost()" in repr(view)
    assert listener.events[3][:2] == ("assigned", frozenset(partitions_of(topic, 1)))


class PauseOnFirstAssignment(RebalanceListener):
    def __init__(self) -> None:
        self.assignments = 0

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        self.assignments += 1
        if self.assignments == 1:
            consumer.pause(*partitions)


def test_pause_in_assigned_persists_and_revocation_clears_it(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    produce(broker.bootstrap, topic, range(20), partitions=2)
    got: list[Any] = []
    with fleet() as group:
        first = make_consumer(broker.bootstrap, broker.group())
        group_id = first.config["group_id"]
        set_rebalance_listener(first, PauseOnFirstAssignment())
        first.subscribe([topic])
        group.add(first, lambda _, records: got.append(records))
        group.until(lambda: first.assignment(), "the first assignment")
        group.settle()
        assert first.paused() == partitions_of(topic, 2)  # survived the callback
        assert got == []  # and really paused: the data is there

        second = make_consumer(broker.bootstrap, group_id)
        second.subscribe([topic])
        group.add(second)
        group.until(lambda: group.balanced(2), "two members")
        assert first.paused() == set()  # the eager rebalance revoked both: pause cleared
        group.until(lambda: bool(got), "records on the unpaused partition")


@pytest.mark.parametrize(
    ("listener", "message"),
    [
        (object(), r"object has no callable on_partitions_assigned\(\)"),
        (None, None),
    ],
)
def test_bad_listeners_get_a_clear_type_error(
    broker: Broker, listener: Any, message: str | None
) -> None:
    consumer = make_consumer(broker.bootstrap, broker.group())
    try:
        if message is None:
            set_rebalance_listener(consumer, listener)  # None is fine: it removes
            return
        with pytest.raises(TypeError, match=message):
            set_rebalance_listener(consumer, listener)
    finally:
        consumer.close(autocommit=False)


def test_async_callbacks_are_refused(broker: Broker) -> None:
    class AsyncRevoke(RebalanceListener):
        async def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:  # type: ignore[override]
            pass

    consumer = make_consumer(broker.bootstrap, broker.group())
    try:
        with pytest.raises(
            TypeError, match=r"AsyncRevoke.on_partitions_revoked\(\) is async.*use def"
        ):
            set_rebalance_listener(consumer, AsyncRevoke())
    finally:
        consumer.close(autocommit=False)


def test_a_non_consumer_is_refused() -> None:
    with pytest.raises(TypeError, match=r"consumer must be a kafka\.KafkaConsumer, not str"):
        set_rebalance_listener("consumer", Recorder())  # type: ignore[arg-type]
