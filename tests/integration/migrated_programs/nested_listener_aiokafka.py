"""The worker of nested_listener_kafka_python.py on aiokafka: its rebalance listener is a
class nested in it, created through ``self`` (``listener=self.RebalanceListener(self,
worker_id)``, the shape of ``shapes/nested_listener_classes.py``); the coroutine callbacks
reach the consumer through the runner they are handed, the revocation draining what the
runner holds and committing with a bare ``await self.runner.consumer.commit()``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener

log = logging.getLogger(__name__)


class Runner:
    class RebalanceListener(ConsumerRebalanceListener):
        def __init__(self, runner: Runner, worker_id: str) -> None:
            self.runner = runner
            self.worker_id = worker_id

        async def on_partitions_revoked(self, revoked: Any) -> None:
            log.info("[worker %s] revoked %s", self.worker_id, revoked)
            self.runner.drain()
            await self.runner.consumer.commit()
            self.runner.owned -= set(revoked)

        async def on_partitions_assigned(self, assigned: Any) -> None:
            log.info("[worker %s] assigned %s", self.worker_id, assigned)
            self.runner.owned |= set(assigned)

    def __init__(
        self,
        worker_id: str,
        consumer: AIOKafkaConsumer,
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

    async def run(self, stopping: asyncio.Event) -> None:
        self.consumer.subscribe(self.topics, listener=self.RebalanceListener(self, self.worker_id))
        await self.consumer.start()
        try:
            while not stopping.is_set():
                for records in (await self.consumer.getmany(timeout_ms=100)).values():
                    self.pending.extend(records)
                self.drain()
        finally:
            await self.consumer.stop()
