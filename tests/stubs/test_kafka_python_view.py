"""The kafka-python view on its own: forwarding while live, refusing after, omitting the rest.

The view wraps a real ``KafkaConsumer`` (manually assigned, so no rebalance is needed) on the
real broker; views handed to real callbacks are tested in test_kafka_python_listener.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kafka import TopicPartition
from kafka.future import Future
from kafka.structs import OffsetAndMetadata
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard._view import OMITTED, live
from rebalance_guard.kafka_python import (
    KafkaPythonRebalanceView,
    RebalanceConsumer,
    RebalanceListener,
)

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import KP3, make_consumer, produce

pytestmark = [pytest.mark.kafka_python, pytest.mark.broker]

LABEL = "Committer.on_partitions_revoked"


@pytest.fixture(scope="module")
def topic(broker: Broker) -> str:
    name = broker.create_topic(partitions=2)
    produce(broker.bootstrap, name, range(10), partitions=2)  # offsets 0-4 each
    return name


@pytest.fixture
def consumer(broker: Broker, topic: str) -> Iterator[Any]:
    consumer = make_consumer(broker.bootstrap, broker.group())
    consumer.assign([TopicPartition(topic, 0), TopicPartition(topic, 1)])
    try:
        yield consumer
    finally:
        consumer.close(autocommit=False)


def protocol_methods() -> list[str]:
    return sorted(
        name for name in vars(RebalanceConsumer) if not name.startswith("_") and name != "mro"
    )


def test_view_offers_exactly_the_protocol() -> None:
    offered = {
        name
        for name in vars(KafkaPythonRebalanceView)
        if not name.startswith("_") and callable(getattr(KafkaPythonRebalanceView, name))
    }
    assert offered == set(protocol_methods())
    assert not offered & OMITTED


def test_permitted_methods_reach_the_consumer_while_live(consumer: Any, topic: str) -> None:
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)
    with live(KafkaPythonRebalanceView(consumer, LABEL)) as view:
        assert view.assignment() == {tp0, tp1}
        view.pause(tp0)
        assert view.paused() == consumer.paused() == {tp0}
        view.resume(tp0)
        assert consumer.paused() == set()
        view.seek(tp0, 3)
        assert view.position(tp0) == 3
        view.seek_to_end(tp0)
        assert view.position(tp0) == 5
        view.seek_to_beginning(tp0)
        assert view.position(tp0) == 0
        assert view.beginning_offsets([tp0, tp1]) == {tp0: 0, tp1: 0}
        assert view.end_offsets([tp0, tp1]) == {tp0: 5, tp1: 5}
        if KP3:  # kafka-python 2's offset queries take no timeout_ms (request_timeout_ms rules)
            assert view.end_offsets([tp0], timeout_ms=10_000) == {tp0: 5}
        else:
            with pytest.raises(TypeError, match="timeout_ms"):
                view.end_offsets([tp0], timeout_ms=10_000)
        assert view.partitions_for_topic(topic) == {0, 1}
        assert topic in view.topics()
        view.commit({tp0: OffsetAndMetadata(2, "", -1)})
        assert view.committed(tp0) == 2
        assert view.committed(tp0, metadata=True).offset == 2
        future = view.commit_async({tp1: OffsetAndMetadata(4, "", -1)})
        assert isinstance(future, Future)
        assert view.offsets_for_times({tp1: 0})[tp1].offset == 0


def test_group_metadata_on_kafka_python_3_and_a_clear_error_on_2(consumer: Any) -> None:
    with live(KafkaPythonRebalanceView(consumer, LABEL)) as view:
        if KP3:  # kafka-python 3 added KafkaConsumer.group_metadata()
            assert view.group_metadata().group_id == consumer.config["group_id"]
        else:
            with pytest.raises(AttributeError, match=r"kafka-python >= 3"):
                view.group_metadata()


CALLS: dict[str, tuple[Any, ...]] = {
    "commit": (),
    "commit_async": (),
    "committed": (TopicPartition("t", 0),),
    "position": (TopicPartition("t", 0),),
    "seek": (TopicPartition("t", 0), 1),
    "seek_to_beginning": (),
    "seek_to_end": (),
    "assignment": (),
    "pause": (),
    "resume": (),
    "paused": (),
    "beginning_offsets": ([TopicPartition("t", 0)],),
    "end_offsets": ([TopicPartition("t", 0)],),
    "offsets_for_times": ({TopicPartition("t", 0): 0},),
    "partitions_for_topic": ("t",),
    "topics": (),
    "highwater": (TopicPartition("t", 0),),
    "group_metadata": (),
}


def test_every_protocol_method_has_a_call_below() -> None:
    assert set(CALLS) == set(protocol_methods())


@pytest.mark.parametrize("method", sorted(CALLS))
def test_every_permitted_method_refuses_after_the_callback(consumer: Any, method: str) -> None:
    with live(KafkaPythonRebalanceView(consumer, LABEL)) as view:
        pass
    before = (consumer.assignment(), consumer.paused())
    with pytest.raises(RebalanceViewExpiredError) as info:
        getattr(view, method)(*CALLS[method])
    assert f"{method}() called on the rebalance view after {LABEL}() returned" in str(info.value)
    assert (consumer.assignment(), consumer.paused()) == before  # nothing reached the consumer


@pytest.mark.parametrize(
    "method", ["poll", "close", "subscribe", "unsubscribe", "assign", "__next__"]
)
def test_omitted_methods_are_absent_with_a_reason(consumer: Any, method: str) -> None:
    view = KafkaPythonRebalanceView(consumer, LABEL)
    with pytest.raises(AttributeError, match=rf"{method}\(\) is not available .*{LABEL}"):
        getattr(view, method)


@pytest.mark.parametrize("method", ["subscription", "metrics", "bootstrap_connected"])
def test_methods_on_neither_list_are_omitted(consumer: Any, method: str) -> None:
    assert hasattr(consumer, method)
    with pytest.raises(AttributeError):
        getattr(KafkaPythonRebalanceView(consumer, LABEL), method)


def test_the_view_cannot_be_iterated(consumer: Any) -> None:
    with pytest.raises(TypeError):
        iter(KafkaPythonRebalanceView(consumer, LABEL))  # type: ignore[call-overload]


def test_lost_defaults_to_revoked() -> None:
    calls: list[tuple[str, object, object]] = []

    class OnlyRevoked(RebalanceListener):
        def on_partitions_revoked(self, partitions: Any, consumer: Any) -> None:
            calls.append(("revoked", partitions, consumer))

    sentinel_partitions, sentinel_view = {TopicPartition("t", 0)}, object()
    OnlyRevoked().on_partitions_lost(sentinel_partitions, sentinel_view)  # type: ignore[arg-type]
    assert calls == [("revoked", sentinel_partitions, sentinel_view)]
