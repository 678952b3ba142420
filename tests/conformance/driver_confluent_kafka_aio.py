"""Conformance driver for confluent-kafka's asyncio consumer: AIOConsumer +
rebalance_guard.confluent_kafka_aio.

Each member runs its own event loop on its polling thread; between polls the loop is idle
and the member's calls (``assignment()``, ``subscribe()``...) run their coroutines to
completion on it. During ``await consumer.poll()`` librdkafka calls the rebalance callbacks
from AIOConsumer's executor thread, and confluent runs them on this loop.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from confluent_kafka.aio import AIOConsumer
from rebalance_guard.confluent_kafka_aio import RebalanceListener, set_rebalance_listener

from tests.conformance.driver import AsyncScriptListener, ThreadedDriver
from tests.conformance.driver_confluent_kafka import ConfluentMember, ConfluentOps


class _Listener(AsyncScriptListener, RebalanceListener):
    """The suite's async listener as a rebalance_guard.confluent_kafka_aio listener."""


class AIOConfluentMember(ConfluentMember):
    loop: asyncio.AbstractEventLoop

    async def _start(self) -> None:
        self.consumer = AIOConsumer(self._config())  # needs the running loop
        set_rebalance_listener(self.consumer, _Listener(self, ConfluentOps))
        await self.consumer.subscribe(self.topics)

    def _open(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._start())

    def _settle(self, result: Any) -> Any:
        if inspect.isawaitable(result):
            return self.loop.run_until_complete(result)
        return result

    def _close(self) -> None:
        if not hasattr(self, "loop"):
            return
        try:
            super()._close()
        finally:
            self.loop.close()


class AIOConfluentDriver(ThreadedDriver):
    name = "confluent_kafka_aio"
    member_class = AIOConfluentMember


DRIVER = AIOConfluentDriver()
