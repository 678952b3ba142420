"""Type checks for rebalance_guard.kafka_python (run by test_type_checks.py with mypy and pyright).

Every permitted method type-checks with its kafka-python result type; every omitted method
(polling, closing, changing the subscription, iteration, anything not on KIP-1306's list)
is a coded type error on the view.
"""

# pyright: reportMissingTypeStubs=false
# (kafka-python ships no py.typed; pyright reads its sources, mypy sees Any)

from __future__ import annotations

from typing import Any, assert_type

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.future import Future
from kafka.structs import OffsetAndMetadata, OffsetAndTimestamp, TopicPartition
from rebalance_guard import RebalanceViewExpiredError, chain_callback
from rebalance_guard.kafka_python import (
    GroupMetadata,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

TP = TopicPartition("topic", 0)


def on_commit(offsets: Any, response: Any) -> None:
    pass


def permitted(consumer: RebalanceConsumer) -> None:
    assert_type(consumer.commit(), None)
    assert_type(consumer.commit({TP: OffsetAndMetadata(5, "", -1)}, timeout_ms=1000), None)
    assert_type(consumer.commit_async(), Future)
    assert_type(consumer.commit_async({TP: OffsetAndMetadata(5, "", -1)}, on_commit), Future)
    assert_type(consumer.committed(TP), int | None)
    assert_type(consumer.committed(TP, metadata=True), OffsetAndMetadata | None)
    assert_type(consumer.committed(TP, timeout_ms=500), int | None)
    assert_type(consumer.committed(TP, bool(TP.partition)), int | OffsetAndMetadata | None)
    assert_type(consumer.position(TP), int | None)
    assert_type(consumer.seek(TP, 5), None)
    assert_type(consumer.seek_to_beginning(TP), None)
    assert_type(consumer.seek_to_end(), None)
    assert_type(consumer.assignment(), set[TopicPartition])
    assert_type(consumer.pause(TP), None)
    assert_type(consumer.resume(TP), None)
    assert_type(consumer.paused(), set[TopicPartition])
    assert_type(consumer.beginning_offsets([TP]), dict[TopicPartition, int])
    assert_type(consumer.end_offsets([TP], timeout_ms=1000), dict[TopicPartition, int])
    assert_type(
        consumer.offsets_for_times({TP: 0}), dict[TopicPartition, OffsetAndTimestamp | None]
    )
    assert_type(consumer.partitions_for_topic("topic"), set[int])
    assert_type(consumer.topics(), set[str])
    assert_type(consumer.highwater(TP), int | None)
    metadata = consumer.group_metadata()
    assert_type(metadata, GroupMetadata)
    assert_type(metadata.generation_id, int)
    assert_type(metadata.member_id, str)


def omitted(consumer: RebalanceConsumer) -> None:
    consumer.poll()  # type: ignore[attr-defined]
    consumer.poll(timeout_ms=100)  # type: ignore[attr-defined]
    consumer.close()  # type: ignore[attr-defined]
    consumer.subscribe(["topic"])  # type: ignore[attr-defined]
    consumer.unsubscribe()  # type: ignore[attr-defined]
    consumer.assign([TP])  # type: ignore[attr-defined]
    consumer.subscription()  # type: ignore[attr-defined]
    consumer.metrics()  # type: ignore[attr-defined]
    consumer.bootstrap_connected()  # type: ignore[attr-defined]
    for _ in consumer:  # type: ignore[attr-defined]
        pass
    next(consumer)  # type: ignore[call-overload]


def wrong_arguments(consumer: RebalanceConsumer) -> None:
    consumer.seek(TP, "5")  # type: ignore[arg-type]
    _ = consumer.committed(TP, metadata=True).offset  # type: ignore[union-attr]


class Committing(RebalanceListener):
    def __init__(self) -> None:
        self.processed: dict[TopicPartition, int] = {}

    def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        consumer.commit({tp: OffsetAndMetadata(self.processed[tp], "", -1) for tp in partitions})

    def on_partitions_assigned(
        self, partitions: set[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        for tp in partitions:
            consumer.seek(tp, 0)


class WrongOrder(RebalanceListener):
    def on_partitions_assigned(  # type: ignore[override]
        self, consumer: RebalanceConsumer, partitions: set[TopicPartition]
    ) -> None:
        pass


def registration(consumer: KafkaConsumer, legacy: ConsumerRebalanceListener) -> None:
    set_rebalance_listener(consumer, Committing())
    set_rebalance_listener(consumer, legacy)
    set_rebalance_listener(consumer, None)
    assert issubclass(RebalanceViewExpiredError, RuntimeError)


class Chaining(RebalanceListener):
    """A wrapper handing its callbacks on to the listener it was given (legacy or migrated)."""

    def __init__(self, inner: ConsumerRebalanceListener | RebalanceListener) -> None:
        self.inner = inner

    def on_partitions_revoked(
        self, partitions: set[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        chain_callback(self.inner, "on_partitions_revoked", partitions, consumer)
        chain_callback(self.inner, "on_partition_revoked", partitions, consumer)  # type: ignore[arg-type]
