"""Type checks for rebalance_guard.kafka_python's async listener (issue 25 item 2).

Run by test_type_checks.py with mypy and pyright. The async view offers the sync view's
methods; the blocking ones are coroutines (their awaited results have the sync view's types),
the others are called as on the sync view. Omitted methods, a one-argument or ``def``
callback, awaiting a method that is not a coroutine and forgetting to await one are coded
type errors.
"""

# pyright: reportMissingTypeStubs=false
# (kafka-python ships no py.typed; pyright reads its sources, mypy sees Any)

from __future__ import annotations

import time
from typing import Any, assert_type

from kafka import KafkaConsumer
from kafka.structs import OffsetAndMetadata, OffsetAndTimestamp, TopicPartition
from rebalance_guard.kafka_python import (
    AsyncRebalanceConsumer,
    AsyncRebalanceListener,
    AwaitableFuture,
    GroupMetadata,
    set_rebalance_listener,
    to_thread,
)

TP = TopicPartition("topic", 0)


async def permitted(consumer: AsyncRebalanceConsumer) -> None:
    assert_type(await consumer.commit(), None)
    assert_type(await consumer.commit({TP: OffsetAndMetadata(5, "", -1)}, timeout_ms=1000), None)
    assert_type(consumer.commit_async(), AwaitableFuture)
    await consumer.commit_async({TP: OffsetAndMetadata(5, "", -1)})
    assert consumer.commit_async().succeeded()
    assert_type(await consumer.committed(TP), int | None)
    assert_type(await consumer.committed(TP, metadata=True), OffsetAndMetadata | None)
    assert_type(await consumer.committed(TP, bool(TP.partition)), int | OffsetAndMetadata | None)
    assert_type(await consumer.position(TP), int | None)
    assert_type(consumer.seek(TP, 5), None)
    assert_type(consumer.seek_to_beginning(TP), None)
    assert_type(consumer.seek_to_end(), None)
    assert_type(consumer.assignment(), set[TopicPartition])
    assert_type(consumer.pause(TP), None)
    assert_type(consumer.resume(TP), None)
    assert_type(consumer.paused(), set[TopicPartition])
    assert_type(await consumer.beginning_offsets([TP]), dict[TopicPartition, int])
    assert_type(await consumer.end_offsets([TP], timeout_ms=1000), dict[TopicPartition, int])
    assert_type(
        await consumer.offsets_for_times({TP: 0}),
        dict[TopicPartition, OffsetAndTimestamp | None],
    )
    assert_type(await consumer.partitions_for_topic("topic"), set[int])
    assert_type(await consumer.topics(), set[str])
    assert_type(consumer.highwater(TP), int | None)
    assert_type(consumer.group_metadata(), GroupMetadata)
    assert_type(await to_thread(time.monotonic), float)
    assert_type(await to_thread(round, 2.5), int)
    await to_thread(time.sleep, "1")  # type: ignore[arg-type]


async def omitted(consumer: AsyncRebalanceConsumer) -> None:
    consumer.poll()  # type: ignore[attr-defined]
    consumer.close()  # type: ignore[attr-defined]
    consumer.subscribe(["topic"])  # type: ignore[attr-defined]
    consumer.unsubscribe()  # type: ignore[attr-defined]
    consumer.assign([TP])  # type: ignore[attr-defined]
    for _ in consumer:  # type: ignore[attr-defined]
        pass


async def wrong_use(consumer: AsyncRebalanceConsumer) -> None:
    await consumer.seek(TP, 5)  # type: ignore[func-returns-value,misc]
    offset: int | None = consumer.position(TP)  # type: ignore[assignment]
    del offset
    consumer.seek(TP, "5")  # type: ignore[arg-type]
    consumer.commit()  # type: ignore[unused-coroutine]


class Committing(AsyncRebalanceListener):
    def __init__(self) -> None:
        self.processed: dict[TopicPartition, int] = {}

    async def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        await consumer.commit(
            {tp: OffsetAndMetadata(self.processed[tp], "", -1) for tp in partitions}
        )

    async def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        for tp in partitions:
            consumer.seek(tp, 0)


class OneArgument(AsyncRebalanceListener):
    async def on_partitions_revoked(  # type: ignore[override]
        self, partitions: set[TopicPartition]
    ) -> None:
        pass


class NotAsync(AsyncRebalanceListener):
    def on_partitions_revoked(  # type: ignore[override]
        self, partitions: set[TopicPartition], consumer: AsyncRebalanceConsumer
    ) -> None:
        pass


def registration(consumer: KafkaConsumer, listener: Any) -> None:
    set_rebalance_listener(consumer, Committing())
    set_rebalance_listener(consumer, None)
