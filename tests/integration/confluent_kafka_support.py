"""Shared helpers for the confluent-kafka tests against the real broker (no tests here).

Poll loops run against a deadline instead of sleeping: on a loaded 2-core machine the first
assignment and a rebalance take seconds, sometimes much more.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import confluent_kafka
import pytest
from confluent_kafka import Message, Producer, TopicPartition
from rebalance_guard.confluent_kafka import Consumer

from tests.integration.broker import Broker, confluent_group_config

#: Every rebalance protocol librdkafka speaks: classic eager (range), classic cooperative
#: (cooperative-sticky) and KIP-848's consumer protocol.
PROTOCOLS = ("eager", "cooperative", "consumer")

DEADLINE_S = 60.0
ConsumerT = TypeVar("ConsumerT", bound=confluent_kafka.Consumer)


def config(
    broker: Broker, group: str | None = None, protocol: str = "eager", **extra: Any
) -> dict[str, Any]:
    """A consumer configuration for the test broker: manual commits, from the beginning, in a
    ``protocol`` group (no session or heartbeat settings under KIP-848: the broker's)."""
    if protocol == "consumer" and not broker.speaks_consumer_protocol:
        pytest.skip(f"{broker.kind} does not speak KIP-848's consumer group protocol")
    return {
        "bootstrap.servers": broker.bootstrap,
        "group.id": group or broker.group(),
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        **confluent_group_config(protocol),
        **extra,
    }


def produce(broker: Broker, topic: str, count: int, partitions: int, start: int = 0) -> None:
    """Write messages ``start .. start+count-1`` (the value is the number), round-robin."""
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
    for number in range(start, start + count):
        while True:
            try:
                producer.produce(topic, str(number).encode(), partition=number % partitions)
                break
            except BufferError:  # local queue full: let deliveries drain
                producer.poll(0.05)
    assert producer.flush(60) == 0, "producer could not deliver within 60 s"


def number(message: Message[Any, Any]) -> int:
    value = message.value()
    assert isinstance(value, bytes)
    return int(value)


def poll_until(
    consumers: Sequence[ConsumerT],
    done: Callable[[], bool],
    on_message: Callable[[ConsumerT, Message[Any, Any]], None] = lambda c, m: None,
    timeout: float = DEADLINE_S,
    what: str = "condition",
) -> None:
    """Poll every consumer in turn until ``done()``; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout:.0f} s")
        for consumer in consumers:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                on_message(consumer, message)


@contextmanager
def closing(consumers: Iterable[confluent_kafka.Consumer]) -> Iterator[None]:
    """Close the consumers afterwards, however the block ends (no threads left behind).

    ``consumers`` is read at the end, so a list may grow inside the block.
    """
    try:
        yield
    finally:
        for consumer in consumers:
            try:
                consumer.close()
            except RuntimeError as exc:
                if "closed" not in str(exc):  # "Consumer closed": closed by the test itself
                    raise


def partitions_of(parts: list[TopicPartition]) -> set[int]:
    return {p.partition for p in parts}


def new_consumer(broker: Broker, **extra: Any) -> Consumer:
    return Consumer(config(broker, **extra))
