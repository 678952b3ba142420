"""A confluent-kafka consumer generic in what it decodes (held_out_7 010's abstract generic
base owning its callbacks; the shape of tests/codemods/test_owner_bases.py):
``TypedConsumer(ABC, Generic[T])`` registers its own methods as callbacks and hands each
message's decoded value (``decode``, the subclass's) to its handler; ``NumberConsumer`` is a
``TypedConsumer[int]``. The poll loop commits every ``COMMIT_EVERY`` messages; the revocation
commits, synchronously, what was processed of the revoked partitions since (the next owner
continues right after it)."""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

#: commit errors of a group in the middle of a rebalance: the commit is tried again
RETRIABLE = (
    KafkaError.REBALANCE_IN_PROGRESS,
    KafkaError.ILLEGAL_GENERATION,
    KafkaError.STALE_MEMBER_EPOCH,
    KafkaError._WAIT_COORD,
)
COMMIT_DEADLINE_S = 30.0
COMMIT_EVERY = 40

T = TypeVar("T")


class TypedConsumer(ABC, Generic[T]):
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.consumer = Consumer(config)
        self.owned: set[int] = set()
        self.pending: dict[int, int] = {}
        self.processed = 0

    @abstractmethod
    def decode(self, raw: bytes) -> T: ...

    def run(self, handle: Callable[[int, int, T], None], stopping: threading.Event) -> None:
        """``handle(partition, offset, value)`` for each message, ``value`` decoded."""
        self.consumer.subscribe([self.topic], on_assign=self._on_assign, on_revoke=self._on_revoke)
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None or message.error():
                    continue
                partition, offset = message.partition() or 0, message.offset() or 0
                handle(partition, offset, self.decode(message.value() or b""))
                self.processed += 1
                self.pending[partition] = offset + 1
                if self.processed % COMMIT_EVERY == 0:
                    offsets = [TopicPartition(self.topic, p, o) for p, o in self.pending.items()]
                    self.pending.clear()
                    self._commit(offsets)
        finally:
            self.consumer.close()

    def _commit(self, offsets: list[TopicPartition]) -> None:
        deadline = time.monotonic() + COMMIT_DEADLINE_S
        while True:
            try:
                self.consumer.commit(offsets=offsets, asynchronous=False)
                return
            except KafkaException as exc:
                if exc.args[0].code() not in RETRIABLE or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        revoked = {p.partition for p in partitions}
        done = revoked & set(self.pending)
        offsets = [TopicPartition(self.topic, p, self.pending.pop(p)) for p in done]
        if offsets:
            consumer.commit(offsets=offsets, asynchronous=False)
        self.owned -= revoked


class NumberConsumer(TypedConsumer[int]):
    def decode(self, raw: bytes) -> int:
        return int(raw)
