"""The confluent-kafka view and adapter on real (unconnected) consumer objects, no broker.

librdkafka keeps the assignment locally, so ``assign()``, ``assignment()``, ``unassign()``
and the adapter's callbacks can be exercised without a broker; what needs a group
(callbacks from poll, pause, lost, protocols) is in test_confluent_kafka_semantics.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard._view import OMITTED, live
from rebalance_guard.confluent_kafka import (
    ConfluentRebalanceView,
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

CONFIG = {"group.id": "unit", "bootstrap.servers": "127.0.0.1:9"}  # nothing listens there
TP0, TP1 = TopicPartition("topic", 0), TopicPartition("topic", 1)

PERMITTED = {name for name in vars(RebalanceConsumer) if not name.startswith("_")}
CALLS: dict[str, tuple[Any, ...]] = {
    "commit": (),
    "committed": ([TP0], 0.1),
    "position": ([TP0],),
    "seek": (TopicPartition("topic", 0, 5),),
    "assignment": (),
    "pause": ([TP0],),
    "resume": ([TP0],),
    "get_watermark_offsets": (TP0, 0.1, True),
    "offsets_for_times": ([TP0], 0.1),
    "list_topics": ("topic", 0.1),
    "consumer_group_metadata": (),
    "memberid": (),
}


@pytest.fixture
def consumer() -> Iterator[Consumer]:
    consumer = Consumer(CONFIG)
    try:
        yield consumer
    finally:
        consumer.close()


def test_view_offers_exactly_the_protocol() -> None:
    offered = {n for n in dir(ConfluentRebalanceView) if not n.startswith("_")}
    assert offered == PERMITTED == set(CALLS)


@pytest.mark.parametrize(
    "name", sorted(n for n in dir(confluent_kafka.Consumer) if not n.startswith("_"))
)
def test_every_other_consumer_method_is_refused(consumer: Consumer, name: str) -> None:
    view = ConfluentRebalanceView(consumer, "L.on_partitions_assigned")
    if name in PERMITTED:
        assert callable(getattr(view, name))
        return
    with pytest.raises(AttributeError) as info:
        getattr(view, name)
    if name in OMITTED:
        assert "KIP-1306" in str(info.value) and "L.on_partitions_assigned" in str(info.value)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_expired_view_raises_naming_method_and_callback(consumer: Consumer, name: str) -> None:
    view = ConfluentRebalanceView(consumer, "MyListener.on_partitions_revoked")
    with live(view):
        pass
    with pytest.raises(RebalanceViewExpiredError) as info:
        getattr(view, name)(*CALLS[name])
    assert f"{name}()" in str(info.value)
    assert "MyListener.on_partitions_revoked()" in str(info.value)


class Recorder(RebalanceListener):
    """Seeks and pauses in assigned, keeps every view it was given."""

    def __init__(self) -> None:
        self.views: list[RebalanceConsumer] = []
        self.calls: list[tuple[str, set[int]]] = []

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.views.append(consumer)
        self.calls.append(("assigned", {p.partition for p in partitions}))
        consumer.seek(TopicPartition("topic", 0, 42))
        self.seen_assignment = {p.partition for p in consumer.assignment()}
        self.seen_position = {p.partition: p.offset for p in consumer.position(partitions)}

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.views.append(consumer)
        self.calls.append(("revoked", {p.partition for p in partitions}))


def test_seek_in_assigned_goes_into_the_assignment(consumer: Consumer) -> None:
    listener = Recorder()
    set_rebalance_listener(consumer, listener)
    consumer._rebalance.on_assign(consumer, [TP0, TP1])  # what librdkafka calls from poll()
    # In raw confluent seek() here fails with _UNKNOWN_PARTITION; the view records it.
    assert listener.seen_assignment == {0, 1}
    assert listener.seen_position[0] == 42
    offsets = {p.partition: p.offset for p in consumer.assignment()}
    assert offsets[0] == 42 and offsets[1] < 0  # 1: the committed offset, whatever it is
    consumer._rebalance.on_revoke(consumer, [TP0, TP1])
    assert consumer.assignment() == []
    assert listener.calls == [("assigned", {0, 1}), ("revoked", {0, 1})]


def test_new_view_per_callback_all_expired(consumer: Consumer) -> None:
    listener = Recorder()
    set_rebalance_listener(consumer, listener)
    for _ in range(2):
        consumer._rebalance.on_assign(consumer, [TP0])
        consumer._rebalance.on_revoke(consumer, [TP0])
    assert len({id(v) for v in listener.views}) == 4
    for view in listener.views:
        with pytest.raises(RebalanceViewExpiredError):
            view.assignment()


def test_exception_in_assigned_still_assigns(consumer: Consumer) -> None:
    class Failing(RebalanceListener):
        def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            consumer.seek(TopicPartition("topic", 1, 7))
            raise ValueError("boom")

    set_rebalance_listener(consumer, Failing())
    with pytest.raises(ValueError, match="boom"):
        consumer._rebalance.on_assign(consumer, [TP0, TP1])
    offsets = {p.partition: p.offset for p in consumer.assignment()}
    assert offsets[0] < 0 and offsets[1] == 7


def test_legacy_one_arg_methods_get_partitions_only(consumer: Consumer) -> None:
    calls: list[tuple[str, list[TopicPartition]]] = []

    class Legacy:  # the shape of kafka-python's/aiokafka's ConsumerRebalanceListener
        def on_partitions_assigned(self, partitions: list[TopicPartition]) -> None:
            calls.append(("assigned", partitions))

        def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
            calls.append(("revoked", partitions))

    set_rebalance_listener(consumer, Legacy())  # type: ignore[arg-type]
    consumer._rebalance.on_assign(consumer, [TP0])
    consumer._rebalance.on_lost(consumer, [TP0])  # no lost method: revoked runs
    assert calls == [("assigned", [TP0]), ("revoked", [TP0])]


def test_lost_defaults_to_revoked_and_can_be_overridden(consumer: Consumer) -> None:
    class Default(Recorder):
        pass

    class Overriding(Recorder):
        def on_partitions_lost(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            self.calls.append(("lost", {p.partition for p in partitions}))

    for listener, expected in ((Default(), "revoked"), (Overriding(), "lost")):
        set_rebalance_listener(consumer, listener)
        consumer._rebalance.on_assign(consumer, [TP0])
        consumer._rebalance.on_lost(consumer, [TP0])
        assert listener.calls[-1] == (expected, {0})
        assert consumer.assignment() == []


def test_confluent_callbacks_keep_working_unchanged(consumer: Consumer) -> None:
    calls: list[tuple[str, object, list[TopicPartition]]] = []

    def on_assign(c: confluent_kafka.Consumer, partitions: list[TopicPartition]) -> None:
        calls.append(("assign", c, partitions))

    def on_revoke(c: confluent_kafka.Consumer, partitions: list[TopicPartition]) -> None:
        calls.append(("revoke", c, partitions))

    set_rebalance_listener(consumer, Recorder())
    consumer.subscribe(["topic"], on_assign=on_assign, on_revoke=on_revoke)  # replaces it
    consumer._rebalance.on_assign(consumer, [TP0])
    consumer._rebalance.on_lost(consumer, [TP0])  # confluent: on_revoke when no on_lost
    assert calls == [("assign", consumer, [TP0]), ("revoke", consumer, [TP0])]
    assert consumer.assignment() == []  # nothing assigned: confluent does that after the call


def test_plain_consumer_is_refused_with_the_way_out() -> None:
    plain = confluent_kafka.Consumer(CONFIG)
    try:
        with pytest.raises(TypeError, match=r"only in subscribe\(\).*subscribe\(consumer"):
            set_rebalance_listener(plain, RebalanceListener())  # type: ignore[arg-type]
        subscribe(plain, ["topic"], RebalanceListener())  # the equivalent that works
    finally:
        plain.close()


def test_bad_listeners_get_clear_messages(consumer: Consumer) -> None:
    class Async(RebalanceListener):
        async def on_partitions_revoked(  # type: ignore[override]
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            pass

    with pytest.raises(TypeError, match="cannot await"):
        set_rebalance_listener(consumer, Async())
    with pytest.raises(TypeError, match="no on_partitions_assigned"):
        set_rebalance_listener(consumer, object())  # type: ignore[arg-type]


def test_consumer_accepts_confluent_constructor_forms() -> None:
    forms = [
        Consumer(CONFIG),
        Consumer(CONFIG, **{"client.id": "c"}),
        Consumer(**CONFIG),
    ]
    for made in forms:
        assert isinstance(made, confluent_kafka.Consumer)
        made.close()
    with pytest.raises(confluent_kafka.KafkaException, match=r"no\.such\.property"):
        Consumer({**CONFIG, "no.such.property": 1})
