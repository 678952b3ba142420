"""Type checks for rebalance_guard.aiokafka (run by test_type_checks.py with mypy and pyright).

Every permitted method type-checks with its aiokafka result type (async ones must be awaited);
every omitted method is a coded type error on the view.
"""

# pyright: reportMissingTypeStubs=false
# (aiokafka ships no py.typed; pyright reads its sources, mypy sees Any)

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import assert_type

from aiokafka import AIOKafkaConsumer
from aiokafka.structs import OffsetAndMetadata, OffsetAndTimestamp, TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener

TP = TopicPartition("topic", 0)


async def permitted(consumer: RebalanceConsumer) -> None:
    assert_type(await consumer.commit(), None)
    assert_type(await consumer.commit({TP: 5}), None)
    assert_type(await consumer.commit({TP: (5, "meta")}), None)
    processed: dict[TopicPartition, int] = {TP: 5}
    assert_type(await consumer.commit(processed), None)
    with_metadata: dict[TopicPartition, OffsetAndMetadata] = {TP: OffsetAndMetadata(5, "")}
    assert_type(await consumer.commit(with_metadata), None)
    assert_type(await consumer.committed(TP), int | None)
    assert_type(await consumer.position(TP), int)
    assert_type(consumer.seek(TP, 5), None)
    assert_type(await consumer.seek_to_beginning(TP), bool)
    assert_type(await consumer.seek_to_end(), bool)
    assert_type(consumer.assignment(), AbstractSet[TopicPartition])
    assert_type(consumer.pause(TP), None)
    assert_type(consumer.resume(TP), None)
    assert_type(consumer.paused(), AbstractSet[TopicPartition])
    assert_type(await consumer.beginning_offsets([TP]), dict[TopicPartition, int])
    assert_type(await consumer.end_offsets([TP]), dict[TopicPartition, int])
    assert_type(
        await consumer.offsets_for_times({TP: 0}), dict[TopicPartition, OffsetAndTimestamp | None]
    )
    assert_type(consumer.partitions_for_topic("topic"), AbstractSet[int] | None)
    assert_type(await consumer.topics(), AbstractSet[str])
    assert_type(consumer.highwater(TP), int | None)
    assert_type(consumer.last_stable_offset(TP), int | None)


async def omitted(consumer: RebalanceConsumer) -> None:
    await consumer.getone()  # type: ignore[attr-defined]
    await consumer.getmany()  # type: ignore[attr-defined]
    await consumer.start()  # type: ignore[attr-defined]
    await consumer.stop()  # type: ignore[attr-defined]
    consumer.subscribe(["topic"])  # type: ignore[attr-defined]
    consumer.unsubscribe()  # type: ignore[attr-defined]
    consumer.assign([TP])  # type: ignore[attr-defined]
    consumer.subscription()  # type: ignore[attr-defined]
    await consumer.seek_to_committed()  # type: ignore[attr-defined]
    consumer.commit_async()  # type: ignore[attr-defined]
    async for _ in consumer:  # type: ignore[attr-defined]
        pass
    async with consumer:  # type: ignore[attr-defined]
        pass


def sync_callback_cannot_await(consumer: RebalanceConsumer) -> None:
    # The commit is a coroutine: its result is not None, so a bare call is visibly unfinished.
    pending = consumer.commit()
    pending.close()
    consumer.seek(TP, "5")  # type: ignore[arg-type]
    consumer.commit([(TP, 5)]).close()  # type: ignore[arg-type]


class Mixed(RebalanceListener):
    """Sync and async methods in one listener are both valid overrides."""

    async def on_partitions_revoked(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await consumer.commit()

    def on_partitions_assigned(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        for tp in partitions:
            consumer.seek(tp, 0)


class WrongOrder(RebalanceListener):
    def on_partitions_assigned(  # type: ignore[override]
        self, consumer: RebalanceConsumer, partitions: AbstractSet[TopicPartition]
    ) -> None:
        pass


def registration(consumer: AIOKafkaConsumer) -> None:
    set_rebalance_listener(consumer, Mixed())
    set_rebalance_listener(consumer, None)
    assert issubclass(RebalanceViewExpiredError, RuntimeError)
