"""Shared helpers for the kafka-python tests (named test_* only because these paths are ours).

Each consumer is polled by its own thread (:class:`Fleet`); every thread is stopped and every
consumer closed in a ``finally`` block.
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


def produce(bootstrap: str, topic: str, numbers: Iterable[int], partitions: int) -> None:
    """Write each number as its own message, number ``n`` to partition ``n % partitions``."""
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
    try:
        for n in numbers:
            producer.send(topic, str(n).encode(), partition=n % partitions)
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


class _Member:
    """One consumer and the thread that polls it (one consumer per thread, as in production)."""

    def __init__(self, fleet: Fleet, consumer: Any, handle: Handler | None) -> None:
        self.consumer = consumer
        self.handle = handle
        self._fleet = fleet
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="poller", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                records = self.consumer.poll(timeout_ms=100)
                if records and self.handle is not None:
                    self.handle(self.consumer, records)
            except kafka.errors.KafkaError as exc:
                self._fleet.poll_errors.append((self.consumer, exc))
            except BaseException as exc:  # reported by Fleet.until
                self._fleet.crashes.append(exc)
                return

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)
        assert not self._thread.is_alive(), "a poll() did not return within 60s"


class Fleet:
    """Each consumer polled continuously by its own thread; all stopped and closed at the end.

    One thread per consumer keeps every member inside poll() almost all the time: kafka-python
    3.0.12 throws away a JoinGroup/SyncGroup result that arrives while no poll() is waiting
    and joins again, so consumers polled round-robin from one thread can rebalance forever.
    Call the consumer's own methods (other than reads) only inside :meth:`holding`.
    """

    def __init__(self) -> None:
        self.members: list[_Member] = []
        self.poll_errors: list[tuple[Any, BaseException]] = []
        self.crashes: list[BaseException] = []

    def add(self, consumer: Any, handle: Handler | None = None) -> Any:
        """Start polling ``consumer`` (subscribe and register listeners first)."""
        self.members.append(_Member(self, consumer, handle))
        return consumer

    def _member(self, consumer: Any) -> _Member:
        return next(m for m in self.members if m.consumer is consumer)

    def remove(self, consumer: Any) -> None:
        """Stop polling ``consumer``; the caller closes it."""
        member = self._member(consumer)
        member.stop()
        self.members.remove(member)

    @contextmanager
    def holding(self, consumer: Any) -> Iterator[None]:
        """Stop polling ``consumer`` while the block uses it, then poll it again."""
        member = self._member(consumer)
        member.stop()
        self.members.remove(member)
        try:
            yield
        finally:
            self.add(consumer, member.handle)

    def until(self, condition: Callable[[], bool], what: str, timeout: float = DEADLINE_S) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if self.crashes:
                raise self.crashes[0]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(0.05)

    def settle(self, seconds: float = 1.0) -> None:
        """Let the members poll a little longer, so each has seen the end of a rebalance."""
        time.sleep(seconds)
        if self.crashes:
            raise self.crashes[0]

    def balanced(self, partitions: int) -> bool:
        """Everything is owned once, in even shares (cooperative-sticky may need more rounds)."""
        try:
            owned = [m.consumer.assignment() for m in self.members]
        except RuntimeError:  # read while the poller thread swaps the assignment
            return False
        flat = [tp for tps in owned for tp in tps]
        sizes = [len(tps) for tps in owned]
        even = bool(sizes) and max(sizes) - min(sizes) <= 1 and min(sizes) > 0
        return even and len(flat) == len(set(flat)) == partitions


@contextmanager
def fleet() -> Iterator[Fleet]:
    group = Fleet()
    try:
        yield group
    finally:
        for member in group.members:
            with suppress(Exception):
                member.stop()
        for member in group.members:
            with suppress(Exception):  # teardown must reach every consumer
                member.consumer.close(autocommit=False)


def partitions_of(topic: str, count: int) -> set[TopicPartition]:
    return {TopicPartition(topic, p) for p in range(count)}
