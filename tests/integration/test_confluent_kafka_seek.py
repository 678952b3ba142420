"""Issue 2, item 4b (confluent-kafka): seek in on_partitions_assigned to offsets kept outside Kafka.

In raw confluent a ``seek()`` inside ``on_assign`` fails (librdkafka has not assigned the
partition yet); the first test pins that premise on the installed client. Through the view
it works with both protocols, on the :class:`Consumer` subclass and on a plain consumer
subscribed with :func:`subscribe` (which learns the protocol from librdkafka).
"""

from __future__ import annotations

from typing import Any, cast

import confluent_kafka
import pytest
from confluent_kafka import KafkaException, Message, TopicPartition
from rebalance_guard.confluent_kafka import (
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import (
    PROTOCOLS,
    closing,
    config,
    poll_until,
    produce,
)


def test_raw_confluent_seek_in_on_assign_fails(broker: Broker) -> None:
    topic = broker.create_topic(1)
    errors: list[KafkaException] = []

    def on_assign(consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]) -> None:
        try:
            consumer.seek(TopicPartition(topic, 0, 1))
        except KafkaException as exc:
            errors.append(exc)

    consumer = confluent_kafka.Consumer(config(broker))
    consumer.subscribe([topic], on_assign=on_assign)
    with closing([consumer]):
        poll_until([consumer], lambda: bool(consumer.assignment()), what="assignment")
    assert len(errors) == 1


class ExternalOffsets(RebalanceListener):
    """Offsets live in an outside store (a dict here, a database table in real life)."""

    def __init__(self, topic: str, store: dict[int, int]) -> None:
        self.topic = topic
        self.store = store

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        for p in partitions:
            consumer.seek(TopicPartition(self.topic, p.partition, self.store[p.partition]))


#: How the listener gets on the consumer, and whether the adapter then knows the protocol.
ENTRIES = {"Consumer": True, "subscribe(plain, protocol=)": True, "subscribe(plain)": False}
#: librdkafka's warning for an assign() of the wrong protocol (module docstring, "Protocols").
REFUSED_ASSIGN = "application *assign() call failed"


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_seek_in_assigned_resumes_at_external_offsets(
    broker: Broker, protocol: str, entry: str, capfd: pytest.CaptureFixture[str]
) -> None:
    topic = broker.create_topic(2)
    produce(broker, topic, 20, 2)  # offsets 0-9 on each partition
    store = {0: 4, 1: 7}
    listener = ExternalOffsets(topic, store)
    conf = config(broker, protocol=protocol)
    consumer: confluent_kafka.Consumer
    if entry == "Consumer":
        consumer = Consumer(conf)
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
    else:
        consumer = confluent_kafka.Consumer(conf)
        told = cast(Any, protocol) if ENTRIES[entry] else None
        subscribe(consumer, [topic], listener, protocol=told)
    first: dict[int, int] = {}

    def process(c: confluent_kafka.Consumer, message: Message[Any, Any]) -> None:
        partition, offset = message.partition() or 0, message.offset() or 0
        first.setdefault(partition, offset)
        store[partition] = offset + 1

    with closing([consumer]):
        poll_until([consumer], lambda: store == {0: 10, 1: 10}, process, what="end of data")
    assert first == {0: 4, 1: 7}
    warned = capfd.readouterr().err.count(REFUSED_ASSIGN)
    # known protocol: no warning; unknown: eager is tried first, refused once if incremental
    assert warned == (0 if ENTRIES[entry] or protocol == "eager" else 1), warned
