"""Type checks for rebalance_guard.confluent_kafka_aio (run by test_type_checks.py: mypy, pyright).

Every permitted method is a coroutine and type-checks, awaited, with confluent's result type;
``commit()`` is synchronous (returns the committed offsets) unless ``asynchronous=True``;
every omitted ``AIOConsumer`` method is a coded type error on the view.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, assert_type

from confluent_kafka import Message, TopicPartition
from confluent_kafka.admin._metadata import ClusterMetadata
from confluent_kafka.aio import AIOConsumer
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.confluent_kafka_aio import (
    NotAwaitedError,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

TP = TopicPartition("topic", 0, 5)


async def permitted(consumer: RebalanceConsumer, message: Message[Any, Any]) -> None:
    assert_type(await consumer.commit(), list[TopicPartition])
    assert_type(await consumer.commit(asynchronous=False), list[TopicPartition])
    assert_type(await consumer.commit(offsets=[TP]), list[TopicPartition])
    assert_type(await consumer.commit(message=message), list[TopicPartition])
    assert_type(await consumer.commit(asynchronous=True), None)
    assert_type(await consumer.commit(offsets=[TP], asynchronous=True), None)
    assert_type(await consumer.committed([TP]), list[TopicPartition])
    assert_type(await consumer.committed([TP], timeout=5.0), list[TopicPartition])
    assert_type(await consumer.position([TP]), list[TopicPartition])
    assert_type(await consumer.seek(TP), None)
    assert_type(await consumer.assignment(), list[TopicPartition])
    assert_type(await consumer.pause([TP]), None)
    assert_type(await consumer.resume([TP]), None)
    assert_type(await consumer.get_watermark_offsets(TP), tuple[int, int])
    assert_type(await consumer.get_watermark_offsets(TP, timeout=1.0, cached=True), tuple[int, int])
    assert_type(await consumer.offsets_for_times([TP], timeout=1.0), list[TopicPartition])
    assert_type(await consumer.list_topics("topic", timeout=1.0), ClusterMetadata)
    assert_type(await consumer.consumer_group_metadata(), object)


async def omitted(consumer: RebalanceConsumer) -> None:
    await consumer.poll(1.0)  # type: ignore[attr-defined]
    await consumer.consume(10)  # type: ignore[attr-defined]
    await consumer.close()  # type: ignore[attr-defined]
    await consumer.subscribe(["topic"])  # type: ignore[attr-defined]
    await consumer.unsubscribe()  # type: ignore[attr-defined]
    await consumer.assign([TP])  # type: ignore[attr-defined]
    await consumer.unassign()  # type: ignore[attr-defined]
    await consumer.incremental_assign([TP])  # type: ignore[attr-defined]
    await consumer.incremental_unassign([TP])  # type: ignore[attr-defined]
    await consumer.store_offsets(offsets=[TP])  # type: ignore[attr-defined]
    await consumer.cluster_id()  # type: ignore[attr-defined]
    await consumer.set_sasl_credentials("user", "secret")  # type: ignore[attr-defined]
    await consumer.memberid()  # type: ignore[attr-defined]
    async with consumer:  # type: ignore[attr-defined]
        pass
    await consumer.commit(asynchronous=None)  # type: ignore[call-overload]
    await consumer.seek(TP, 5)  # type: ignore[call-arg]


def sync_callback_cannot_await(consumer: RebalanceConsumer) -> None:
    # Un-awaited, the call is a coroutine, not its result: visibly unfinished.
    pending: Coroutine[Any, Any, list[TopicPartition]] = consumer.commit()
    pending.close()
    offsets: list[TopicPartition] = consumer.position([TP])  # type: ignore[assignment]
    assert offsets


class Mixed(RebalanceListener):
    """``async def`` and ``def`` methods in one listener are both valid overrides."""

    async def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await consumer.commit()

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await consumer.seek(TopicPartition(partitions[0].topic, partitions[0].partition, 0))

    def on_partitions_lost(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        pass


class WrongOrder(RebalanceListener):
    async def on_partitions_assigned(  # type: ignore[override]
        self, consumer: RebalanceConsumer, partitions: list[TopicPartition]
    ) -> None:
        pass


async def registration(consumer: AIOConsumer) -> None:
    assert_type(set_rebalance_listener(consumer, Mixed()), None)
    assert_type(set_rebalance_listener(consumer, None), None)
    assert_type(await subscribe(consumer, ["topic"], Mixed()), None)
    set_rebalance_listener(consumer, object())  # type: ignore[arg-type]
    set_rebalance_listener(object(), Mixed())  # type: ignore[arg-type]
    assert issubclass(RebalanceViewExpiredError, RuntimeError)
    assert issubclass(NotAwaitedError, RuntimeError)
