"""Conformance driver for confluent-kafka's asyncio consumer: AIOConsumer +
rebalance_guard.confluent_kafka_aio.

Each member runs its own event loop on its polling thread; between polls the loop is idle
and the member's calls (``assignment()``, ``subscribe()``...) run their coroutines to
completion on it. During ``await consumer.poll()`` librdkafka calls the rebalance callbacks
from AIOConsumer's executor thread, and confluent runs them on this loop.
"""

from __future__ import annotations

from typing import Any

from rebalance_guard.confluent_kafka_aio import (
    AIOConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.conformance.driver import AsyncScriptListener, LoopMember, ThreadedDriver
from tests.conformance.driver_confluent_kafka import ConfluentMember, ConfluentOps


class _Listener(AsyncScriptListener, RebalanceListener):
    """The suite's async listener as a rebalance_guard.confluent_kafka_aio listener."""


class AIOConfluentMember(LoopMember, ConfluentMember):
    """ConfluentMember's calls, each settled on the member's loop (LoopMember._settle)."""

    async def _start(self) -> None:
        self.consumer = AIOConsumer(self._config())  # needs the running loop
        set_rebalance_listener(self.consumer, _Listener(self, ConfluentOps))
        await self.consumer.subscribe(self.topics)

    def _shutdown(self) -> Any:
        return self.consumer.close()


class AIOConfluentDriver(ThreadedDriver):
    name = "confluent_kafka_aio"
    member_class = AIOConfluentMember


DRIVER = AIOConfluentDriver()
