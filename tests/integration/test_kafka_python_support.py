"""Shared helpers for the kafka-python tests (named test_* only because these paths are ours).

Consumers are driven round-robin from the test's own thread with short poll timeouts, so a
group of several members rebalances without extra threads, and every consumer is closed in a
``finally`` block by :class:`Fleet`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import kafka
import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from tests.integration.broker import GROUP_TIMEOUTS

pytestmark = pytest.mark.kafka_python

#: kafka-python 3 runs listeners on its IO thread and has KIP-429 (cooperative); 2.x has neither.
KP3 = int(kafka.__version__.split(".")[0]) >= 3
DEADLINE_S = 60.0
COOPERATIVE_REASON = (
    "kafka-python 2.x has no cooperative rebalancing: no CooperativeStickyAssignor and no "
    "KIP-429 incremental callbacks (kafka/coordinator/assignors has only range, roundrobin, sticky)"
)


def assignors(protocol: str) -> tuple[Any, ...]:
    """The ``partition_assignment_strategy`` for "eager" or "cooperative" (kafka-python 3)."""
    if protocol == "eager":
        from kafka.coordinator.assignors.range import RangePartitionAssignor

        return (RangePartitionAssignor,)
    from kafka.coordinator.assignors.cooperative_sticky import CooperativeStickyAssignor

    return (CooperativeStickyAssignor,)


def make_consumer(bootstrap: str, group: str, protocol: str = "eager", **overrides: Any) -> Any:
    config: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "group_id": group,
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        "partition_assignment_strategy": assignors(protocol),
        **GROUP_TIMEOUTS,
    }
    config.update(overrides)
    return KafkaConsumer(**config)


def produce(
    bootstrap: str, topic: str, numbers: Iterable[int], partitions: int, batched: bool = True
) -> None:
    """Write each number as its own message, number ``n`` to partition ``n % partitions``.

    ``batched=False`` sends one record per batch: tansu answers ListOffsets(latest) with the
    last batch's base offset + 1, so only then do end offsets equal the record count.
    """
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
    try:
        for n in numbers:
            future = producer.send(topic, str(n).encode(), partition=n % partitions)
            if not batched:
                future.get(timeout=30)
        producer.flush(timeout=30)
    finally:
        producer.close(timeout=10)


class BackgroundProducer:
    """Writes numbered messages at a steady pace until stopped (while the group rebalances)."""

    def __init__(self, bootstrap: str, topic: str, partitions: int, pause_s: float = 0.004):
        self.sent = 0
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._args = (bootstrap, topic, partitions, pause_s)
        self._thread = threading.Thread(target=self._run, name="numbered-producer", daemon=True)

    def _run(self) -> None:
        bootstrap, topic, partitions, pause_s = self._args
        producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
        try:
            while not self._stop.is_set():
                producer.send(topic, str(self.sent).encode(), partition=self.sent % partitions)
                self.sent += 1
                time.sleep(pause_s)
            producer.flush(timeout=30)
        except BaseException as exc:  # reported by stop()
            self._error = exc
        finally:
            producer.close(timeout=10)

    def __enter__(self) -> BackgroundProducer:
        self._thread.start()
        return self

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(timeout=60)
        if self._error is not None:
            raise self._error
        return self.sent

    def __exit__(self, *exc: object) -> None:
        if self._thread.is_alive():
            self._stop.set()
            self._thread.join(timeout=60)


Handler = Callable[[Any, dict[TopicPartition, list[Any]]], None]


class Fleet:
    """Consumers polled round-robin from one thread; all closed when the block ends."""

    def __init__(self) -> None:
        self.members: list[tuple[Any, Handler | None]] = []
        self.poll_errors: list[tuple[Any, BaseException]] = []

    def add(self, consumer: Any, handle: Handler | None = None) -> Any:
        self.members.append((consumer, handle))
        return consumer

    def remove(self, consumer: Any) -> None:
        self.members = [(c, h) for c, h in self.members if c is not consumer]

    def poll_once(self, timeout_ms: int = 100) -> None:
        for consumer, handle in list(self.members):
            try:
                records = consumer.poll(timeout_ms=timeout_ms)
            except kafka.errors.KafkaError as exc:
                self.poll_errors.append((consumer, exc))
                continue
            if records and handle is not None:
                handle(consumer, records)

    def until(self, condition: Callable[[], bool], what: str, timeout: float = DEADLINE_S) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
            self.poll_once()

    def settle(self, seconds: float = 1.0) -> None:
        """Keep polling a little, so every member has seen the end of the rebalance."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.poll_once()

    def balanced(self, partitions: int) -> bool:
        """Every member owns something, nothing is owned twice, everything is owned."""
        owned = [c.assignment() for c, _ in self.members]
        flat = [tp for tps in owned for tp in tps]
        return all(owned) and len(flat) == len(set(flat)) == partitions


@contextmanager
def fleet() -> Iterator[Fleet]:
    group = Fleet()
    try:
        yield group
    finally:
        for consumer, _ in group.members:
            with suppress(Exception):  # teardown must reach every consumer
                consumer.close(autocommit=False)


def partitions_of(topic: str, count: int) -> set[TopicPartition]:
    return {TopicPartition(topic, p) for p in range(count)}


def numbers(records: dict[TopicPartition, list[Any]]) -> list[int]:
    return [int(r.value) for batch in records.values() for r in batch]
