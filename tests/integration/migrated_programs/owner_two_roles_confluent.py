"""A confluent-kafka projector registering ONE method of its own for every change of its
assignment (``on_assign=``, ``on_revoke=`` and ``on_lost=`` all ``self._on_assignment``; the
shape of tests/codemods/fixtures/owner_two_roles.py). The method resets what the projector
keeps per assignment: it counts an epoch, drops the progress it was about to commit and
toggles the partitions the change names (an assignment names partitions that come, a
revocation or a loss partitions that go). The poll loop commits its progress, every partition
of the current assignment, synchronously after each message."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, TopicPartition

#: commit errors of a group in the middle of a rebalance (a cooperative one bumps the
#: generation while the member keeps its partitions): the commit is tried again
RETRIABLE = (
    KafkaError.REBALANCE_IN_PROGRESS,
    KafkaError.ILLEGAL_GENERATION,
    KafkaError.STALE_MEMBER_EPOCH,
    KafkaError._WAIT_COORD,
)
COMMIT_DEADLINE_S = 30.0


class Projector:
    def __init__(self, config: dict[str, Any], topic: str) -> None:
        self.topic = topic
        self.consumer = Consumer(config)
        self.epoch = 0
        self.owned: set[int] = set()
        self.pending: dict[int, int] = {}

    def run(self, handle: Callable[[Message[Any, Any]], None], stopping: threading.Event) -> None:
        self.consumer.subscribe(
            [self.topic],
            on_assign=self._on_assignment,
            on_revoke=self._on_assignment,
            on_lost=self._on_assignment,
        )
        try:
            while not stopping.is_set():
                message = self.consumer.poll(0.1)
                if message is None or message.error():
                    continue
                handle(message)
                self.pending[message.partition() or 0] = (message.offset() or 0) + 1
                self._commit()
        finally:
            self.consumer.close()

    def _commit(self) -> None:
        offsets = [TopicPartition(self.topic, p, o) for p, o in self.pending.items()]
        deadline = time.monotonic() + COMMIT_DEADLINE_S
        while True:
            try:
                self.consumer.commit(offsets=offsets, asynchronous=False)
                return
            except KafkaException as exc:
                if exc.args[0].code() not in RETRIABLE or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _on_assignment(self, _consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self.epoch += 1
        self.owned ^= {p.partition for p in partitions}
        # what the previous assignment processed is committed already: start afresh
        self.pending.clear()
