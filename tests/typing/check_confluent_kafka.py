"""Type checks for rebalance_guard.confluent_kafka (run by test_type_checks.py: mypy, pyright).

Every permitted method type-checks with confluent's result type; ``commit()`` is synchronous
(returns the committed offsets) unless ``asynchronous=True``; every omitted method is a coded
type error on the view.
"""

from __future__ import annotations

from typing import Any, assert_type

import confluent_kafka
from confluent_kafka import Message, TopicPartition
from confluent_kafka.admin._metadata import ClusterMetadata
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

TP = TopicPartition("topic", 0, 5)


def permitted(consumer: RebalanceConsumer, message: Message[Any, Any]) -> None:
    assert_type(consumer.commit(), list[TopicPartition])
    assert_type(consumer.commit(asynchronous=False), list[TopicPartition])
    assert_type(consumer.commit(offsets=[TP]), list[TopicPartition])
    assert_type(consumer.commit(message=message), list[TopicPartition])
    assert_type(consumer.commit(asynchronous=True), None)
    assert_type(consumer.commit(offsets=[TP], asynchronous=True), None)
    assert_type(consumer.committed([TP]), list[TopicPartition])
    assert_type(consumer.committed([TP], timeout=5.0), list[TopicPartition])
    assert_type(consumer.position([TP]), list[TopicPartition])
    assert_type(consumer.seek(TP), None)
    assert_type(consumer.assignment(), list[TopicPartition])
    assert_type(consumer.pause([TP]), None)
    assert_type(consumer.resume([TP]), None)
    assert_type(consumer.get_watermark_offsets(TP), tuple[int, int])
    assert_type(consumer.get_watermark_offsets(TP, timeout=1.0, cached=True), tuple[int, int])
    assert_type(consumer.offsets_for_times([TP], timeout=1.0), list[TopicPartition])
    assert_type(consumer.list_topics("topic", timeout=1.0), ClusterMetadata)
    assert_type(consumer.consumer_group_metadata(), object)
    assert_type(consumer.memberid(), str)


def omitted(consumer: RebalanceConsumer) -> None:
    consumer.poll(1.0)  # type: ignore[attr-defined]
    consumer.consume(10)  # type: ignore[attr-defined]
    consumer.close()  # type: ignore[attr-defined]
    consumer.subscribe(["topic"])  # type: ignore[attr-defined]
    consumer.unsubscribe()  # type: ignore[attr-defined]
    consumer.assign([TP])  # type: ignore[attr-defined]
    consumer.unassign()  # type: ignore[attr-defined]
    consumer.incremental_assign([TP])  # type: ignore[attr-defined]
    consumer.incremental_unassign([TP])  # type: ignore[attr-defined]
    consumer.store_offsets(offsets=[TP])  # type: ignore[attr-defined]
    consumer.cluster_id()  # type: ignore[attr-defined]
    consumer.set_sasl_credentials("user", "secret")  # type: ignore[attr-defined]
    with consumer:  # type: ignore[attr-defined]
        pass
    consumer.commit(asynchronous=None)  # type: ignore[call-overload]
    consumer.seek(TP, 5)  # type: ignore[call-arg]


class Listener(RebalanceListener):
    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        consumer.commit()

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        consumer.seek(TopicPartition(partitions[0].topic, partitions[0].partition, 0))


def registration(plain: confluent_kafka.Consumer) -> None:
    consumer = Consumer({"group.id": "g"})
    assert_type(set_rebalance_listener(consumer, Listener()), None)
    assert_type(set_rebalance_listener(consumer, None), None)
    assert_type(consumer.poll(1.0), Message[bytes, bytes] | None)
    assert_type(subscribe(plain, ["topic"], Listener()), None)
    set_rebalance_listener(plain, Listener())  # type: ignore[arg-type]
    set_rebalance_listener(consumer, object())  # type: ignore[arg-type]
    assert issubclass(RebalanceViewExpiredError, RuntimeError)
