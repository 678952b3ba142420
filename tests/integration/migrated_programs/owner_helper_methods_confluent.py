"""A confluent-kafka sink writing what it consumes in batches (the shape of
tests/codemods/fixtures/owner_helper_methods.py). The poll loop collects messages; a full
batch is flushed (written, then every written position committed), a quiet topic's batch is
only written (committed with the next flush). The owner's own callbacks, registered as
``on_assign=self._on_assign, on_revoke=self._on_revoke``, reach the consumer only through its
helper methods: the revocation flushes (``self._flush()``, whose ``self._commit()`` commits
synchronously on ``self.consumer``), the assignment notes where each partition starts
(``self._note_starts()``: ``committed()`` on ``self.consumer``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition

#: commit errors of a group in the middle of a rebalance: the commit is tried again
RETRIABLE = (
    KafkaError.REBALANCE_IN_PROGRESS,
    KafkaError.ILLEGAL_GENERATION,
    KafkaError.STALE_MEMBER_EPOCH,
    KafkaError._WAIT_COORD,
)
COMMIT_DEADLINE_S = 30.0
BATCH_SIZE = 25


class BatchSink:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.consumer = Consumer(config)
        self.batch: list[Message[Any, Any]] = []
        #: partition -> the next offset after what was written
        self.written: dict[int, int] = {}
        self.owned: set[int] = set()
        #: partition -> the committed offset it was last assigned at (-1001: none)
        self.starts: dict[int, int] = {}
        self.write: Callable[[Message[Any, Any]], None] = lambda message: None

    def run(self, write: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        self.write = write
        self.consumer.subscribe([self.topic], on_assign=self._on_assign, on_revoke=self._on_revoke)
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None:
                    self._write()  # the topic is quiet: write what waits, commit it later
                    continue
                if message.error():
                    continue
                self.batch.append(message)
                if len(self.batch) >= BATCH_SIZE:
                    self._flush()
        finally:
            self.consumer.close()

    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}
        self._note_starts(partitions)

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._flush()
        for p in partitions:
            self.written.pop(p.partition, None)
            self.owned.discard(p.partition)

    def _note_starts(self, partitions: list[TopicPartition]) -> None:
        for tp in self.consumer.committed(partitions, timeout=10):
            self.starts[tp.partition] = tp.offset

    def _write(self) -> None:
        for message in self.batch:
            self.write(message)
            self.written[message.partition() or 0] = (message.offset() or 0) + 1
        self.batch.clear()

    def _flush(self) -> None:
        self._write()
        if self.written:
            self._commit([TopicPartition(self.topic, p, o) for p, o in self.written.items()])

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
