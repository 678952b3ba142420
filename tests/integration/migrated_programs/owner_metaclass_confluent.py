"""A confluent-kafka worker that is a singleton (held_out_7 014's ``metaclass=SingletonMeta``;
the shape of tests/codemods/test_owner_bases.py): ``Worker(config, topic)`` makes the one
worker of the process, every later ``Worker()`` is that worker (the report reads its counters
so). It registers its own methods as callbacks. The poll loop commits every
``COMMIT_EVERY`` messages; the revocation commits, synchronously, what was processed of the
revoked partitions since (the next owner continues right after it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition

#: commit errors of a group in the middle of a rebalance: the commit is tried again
RETRIABLE = (
    KafkaError.REBALANCE_IN_PROGRESS,
    KafkaError.ILLEGAL_GENERATION,
    KafkaError.STALE_MEMBER_EPOCH,
    KafkaError._WAIT_COORD,
)
COMMIT_DEADLINE_S = 30.0
COMMIT_EVERY = 40


class SingletonMeta(type):
    """One instance per class: calling the class again returns it, whatever the arguments."""

    _instances: ClassVar[dict[type, object]] = {}

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls not in cls._instances:
            cls._instances[cls] = super().__call__(*args, **kwargs)
        return cls._instances[cls]


class Worker(metaclass=SingletonMeta):
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.consumer = Consumer(config)
        self.owned: set[int] = set()
        self.pending: dict[int, int] = {}
        self.processed = 0
        self.revocations = 0

    def run(self, handle: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        self.consumer.subscribe([self.topic], on_assign=self._on_assign, on_revoke=self._on_revoke)
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
                self.processed += 1
                self.pending[message.partition() or 0] = (message.offset() or 0) + 1
                if self.processed % COMMIT_EVERY == 0:
                    offsets = [TopicPartition(self.topic, p, o) for p, o in self.pending.items()]
                    self.pending.clear()
                    commit(self.consumer, offsets)
        finally:
            self.consumer.close()

    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.revocations += 1
        revoked = {p.partition for p in partitions}
        offsets = [
            TopicPartition(self.topic, p, self.pending.pop(p)) for p in revoked & set(self.pending)
        ]
        if offsets:
            consumer.commit(offsets=offsets, asynchronous=False)
        self.owned -= revoked


def commit(consumer: Consumer, offsets: list[TopicPartition]) -> None:
    deadline = time.monotonic() + COMMIT_DEADLINE_S
    while True:
        try:
            consumer.commit(offsets=offsets, asynchronous=False)
            return
        except KafkaException as exc:
            if exc.args[0].code() not in RETRIABLE or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def report() -> dict[str, int]:
    """The process's worker's counters (the singleton: no reference needs passing around)."""
    worker = Worker()  # type: ignore[call-arg]
    return {"processed": worker.processed, "revocations": worker.revocations}
