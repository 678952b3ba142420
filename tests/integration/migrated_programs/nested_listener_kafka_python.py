"""A kafka-python worker whose rebalance listener is a class nested in it, created through
``self`` (the shape of ``shapes/nested_listener_classes.py``, fixture
tests/codemods/fixtures/nested_listener_class.py: ``listener=self.RebalanceListener(self,
worker_id)``). The listener reaches the consumer through the runner it is handed: the
revocation drains what the runner still holds and commits with a bare
``self.runner.consumer.commit()``; both callbacks keep the runner's idea of its partitions."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kafka import KafkaConsumer
from kafka.consumer.subscription_state import ConsumerRebalanceListener

log = logging.getLogger(__name__)


class Runner:
    class RebalanceListener(ConsumerRebalanceListener):
        def __init__(self, runner: Runner, worker_id: str) -> None:
            self.runner = runner
            self.worker_id = worker_id

        def on_partitions_revoked(self, revoked: Any) -> None:
            log.info("[worker %s] revoked %s", self.worker_id, revoked)
            self.runner.drain()
            self.runner.consumer.commit()
            self.runner.owned -= set(revoked)

        def on_partitions_assigned(self, assigned: Any) -> None:
            log.info("[worker %s] assigned %s", self.worker_id, assigned)
            self.runner.owned |= set(assigned)

    def __init__(
        self,
        worker_id: str,
        consumer: KafkaConsumer,
        topics: list[str],
        handle: Callable[[Any], None],
    ) -> None:
        self.worker_id = worker_id
        self.topics = topics
        self.consumer = consumer
        self.handle = handle
        self.owned: set[Any] = set()
        self.pending: list[Any] = []

    def drain(self) -> None:
        for record in self.pending:
            self.handle(record)
        self.pending.clear()

    def run(self, stopping: threading.Event) -> None:
        self.consumer.subscribe(self.topics, listener=self.RebalanceListener(self, self.worker_id))
        try:
            while not stopping.is_set():
                for records in self.consumer.poll(timeout_ms=100).values():
                    self.pending.extend(records)
                self.drain()
        finally:
            self.consumer.close()
