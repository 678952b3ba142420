"""The kafka-python async view (issue 25 item 2): the sync view's methods, awaitable on the IO loop.

The view wraps a real ``KafkaConsumer`` (manually assigned) on the broker, and the test's own
coroutine runs on kafka-python 3's IO thread (``consumer._net.run``) exactly where an
``AsyncRebalanceListener`` callback runs: there a blocking consumer call raises, the view's
coroutines do not. The dispatch itself is tested through the harness (no broker) and on the
broker in tests/integration/test_kafka_python_async_listener.py.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest
from kafka import TopicPartition
from kafka.errors import IllegalStateError
from kafka.future import Future
from kafka.structs import OffsetAndMetadata
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard._client_facts import KAFKA_PYTHON, KAFKA_PYTHON_ASYNC_VIEW_COROUTINES
from rebalance_guard._view import OMITTED, awaited
from rebalance_guard.kafka_python import (
    AsyncRebalanceConsumer,
    AsyncRebalanceListener,
    KafkaPythonAsyncRebalanceView,
    NotAwaitedError,
    RebalanceConsumer,
    to_thread,
)

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import KP3, make_consumer, produce
from tests.stubs.test_kafka_python_view import CALLS as SYNC_VIEW_CALLS

pytestmark = [
    pytest.mark.kafka_python,
    pytest.mark.skipif(not KP3, reason="kafka-python 2 refuses async listeners (no IO loop)"),
]

LABEL = "Committer.on_partitions_revoked"


def members(protocol: type) -> dict[str, Any]:
    return {name: m for name, m in vars(protocol).items() if not name.startswith("_")}


def test_the_protocol_offers_the_sync_views_methods_and_awaits_the_blocking_ones() -> None:
    asynchronous = members(AsyncRebalanceConsumer)
    assert set(asynchronous) == set(members(RebalanceConsumer)) == KAFKA_PYTHON.view_methods
    coroutines = {n for n, m in asynchronous.items() if inspect.iscoroutinefunction(m)}
    assert coroutines == KAFKA_PYTHON_ASYNC_VIEW_COROUTINES
    assert KAFKA_PYTHON.io_thread_blocking <= coroutines


def test_the_view_offers_exactly_the_protocol() -> None:
    view = KafkaPythonAsyncRebalanceView
    offered = {n for n in dir(view) if not n.startswith("_") and callable(getattr(view, n))}
    assert offered == set(members(AsyncRebalanceConsumer))
    assert not offered & OMITTED


@pytest.fixture(scope="module")
def topic(broker: Broker) -> str:
    name = broker.create_topic(partitions=2)
    produce(broker.bootstrap, name, range(10), partitions=2)  # offsets 0-4 each
    return name


@pytest.fixture
def consumer(broker: Broker, topic: str) -> Iterator[Any]:
    consumer = make_consumer(broker.bootstrap, broker.group())
    consumer.assign([TopicPartition(topic, 0), TopicPartition(topic, 1)])
    consumer.poll(timeout_ms=100)  # the IO thread runs from the first network call on
    try:
        yield consumer
    finally:
        consumer.close(autocommit=False)


def on_io_thread(consumer: Any, body: Callable[[Any], Coroutine[Any, Any, Any]]) -> Any:
    """Run ``body(view)`` on kafka-python 3's IO loop, as the runtime awaits a callback."""

    async def callback() -> Any:
        view = KafkaPythonAsyncRebalanceView(consumer, LABEL, consumer._net)
        with awaited(view):
            return await body(view)

    return consumer._net.run(callback)


def test_every_permitted_method_works_on_the_io_thread(consumer: Any, topic: str) -> None:
    tp0, tp1 = TopicPartition(topic, 0), TopicPartition(topic, 1)

    async def body(view: Any) -> dict[str, Any]:
        with pytest.raises(RuntimeError, match=r"Cannot block on net\.run"):
            consumer.committed(tp0)  # what a blocking call does here without the view
        seen: dict[str, Any] = {"assignment": view.assignment()}
        view.pause(tp0)
        seen["paused"] = view.paused()
        view.resume(tp0)
        view.seek(tp0, 3)
        seen["position"] = await view.position(tp0)
        view.seek_to_end(tp0)
        seen["end_position"] = await view.position(tp0)
        view.seek_to_beginning(tp0)
        seen["beginning"] = await view.beginning_offsets([tp0, tp1])
        seen["end"] = await view.end_offsets([tp0, tp1], timeout_ms=10_000)
        seen["partitions"] = await view.partitions_for_topic(topic)
        seen["topics"] = await view.topics()
        await view.commit({tp0: OffsetAndMetadata(2, "", -1)})
        seen["committed"] = await view.committed(tp0)
        seen["committed_meta"] = (await view.committed(tp0, metadata=True)).offset
        future = view.commit_async({tp1: OffsetAndMetadata(4, "", -1)})
        assert isinstance(future, Future)
        await future  # kafka-python's own Future completes on its loop
        seen["committed_async"] = await view.committed(tp1)
        seen["times"] = (await view.offsets_for_times({tp1: 0}))[tp1].offset
        seen["highwater"] = view.highwater(tp0)
        seen["group"] = view.group_metadata().group_id
        return seen

    seen = on_io_thread(consumer, body)
    assert seen == {
        "assignment": {tp0, tp1},
        "paused": {tp0},
        "position": 3,
        "end_position": 5,
        "beginning": {tp0: 0, tp1: 0},
        "end": {tp0: 5, tp1: 5},
        "partitions": {0, 1},
        "topics": seen["topics"] | {topic},
        "committed": 2,
        "committed_meta": 2,
        "committed_async": 4,
        "times": 0,
        "highwater": seen["highwater"],
        "group": consumer.config["group_id"],
    }
    assert consumer.paused() == set() and consumer.committed(tp0) == 2


def test_errors_of_a_coroutine_reach_the_callback(consumer: Any) -> None:
    async def body(view: Any) -> None:
        await view.position(TopicPartition("not-assigned", 0))

    with pytest.raises(IllegalStateError):  # kafka-python's own, from the worker thread
        on_io_thread(consumer, body)


CALLS = SYNC_VIEW_CALLS  # the same methods, the same arguments; some awaited here


def test_every_protocol_method_has_a_call_below() -> None:
    assert set(CALLS) == set(members(AsyncRebalanceConsumer))


@pytest.mark.parametrize("method", sorted(CALLS))
def test_every_method_refuses_after_the_callback_when_called(consumer: Any, method: str) -> None:
    async def body(view: Any) -> Any:
        return view

    view = on_io_thread(consumer, body)
    before = (consumer.assignment(), consumer.paused())
    with pytest.raises(RebalanceViewExpiredError) as info:
        getattr(view, method)(*CALLS[method])  # refused before any coroutine exists
    assert f"{method}() called on the rebalance view after {LABEL}() returned" in str(info.value)
    assert (consumer.assignment(), consumer.paused()) == before


def test_an_unawaited_coroutine_is_an_error_and_never_runs(consumer: Any, topic: str) -> None:
    tp0 = TopicPartition(topic, 0)

    async def body(view: Any) -> None:
        view.commit({tp0: OffsetAndMetadata(1, "", -1)})

    with pytest.raises(NotAwaitedError, match=r"commit\(\).*never awaited.*await consumer"):
        on_io_thread(consumer, body)
    assert consumer.committed(tp0) is None


def test_to_thread_outside_a_callback_says_where_it_belongs() -> None:
    coroutine = to_thread(print)
    with pytest.raises(RuntimeError, match="AsyncRebalanceListener callback"):
        coroutine.send(None)


def test_the_base_awaits_revoked_for_lost() -> None:
    assert inspect.iscoroutinefunction(AsyncRebalanceListener.on_partitions_lost)
