"""Helpers shared by the aiokafka integration tests and benchmarks/runtime_aiokafka.py.

No tests here (the file carries the test_aiokafka_ prefix of the files this part owns).
aiokafka consumers must keep calling getmany(): one idle past max_poll_interval_ms leaves
its group, so every started consumer gets a :class:`Pump` while the test waits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from contextlib import AsyncExitStack
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.structs import ConsumerRecord, TopicPartition

from tests.integration.broker import GROUP_TIMEOUTS, Broker

DEADLINE_S = 60.0

Handler = Callable[[TopicPartition, list[ConsumerRecord[Any, Any]]], None]


def make_consumer(bootstrap: str, group: str, **overrides: Any) -> AIOKafkaConsumer:
    """A group consumer with short group timeouts and manual commits (call inside a loop)."""
    options: dict[str, Any] = {
        "bootstrap_servers": bootstrap,
        "group_id": group,
        "enable_auto_commit": False,
        "auto_offset_reset": "earliest",
        **GROUP_TIMEOUTS,
    }
    options.update(overrides)
    return AIOKafkaConsumer(**options)


async def produce(
    bootstrap: str, topic: str, values: Iterable[int], partition: int | None = None
) -> None:
    """Write ``values`` as decimal strings, all acknowledged before returning."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=5)
    await producer.start()
    try:
        futures = [await producer.send(topic, str(v).encode(), partition=partition) for v in values]
        await asyncio.gather(*futures)
    finally:
        await producer.stop()


class Pump:
    """Keeps one consumer polling in the background; records what getmany() raised."""

    def __init__(self, consumer: AIOKafkaConsumer, handle: Handler | None = None) -> None:
        self.consumer = consumer
        self.handle = handle
        self.records: list[ConsumerRecord[Any, Any]] = []
        self.errors: list[BaseException] = []
        self._running = True
        self._task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while self._running:
            try:
                batch = await self.consumer.getmany(timeout_ms=100)
            except Exception as exc:
                self.errors.append(exc)
                continue
            for tp, records in batch.items():
                self.records.extend(records)
                if self.handle is not None:
                    self.handle(tp, records)

    async def stop(self) -> None:
        self._running = False
        await self._task


async def eventually(condition: Callable[[], bool], what: str, timeout: float = DEADLINE_S) -> None:
    """Wait (without blocking the loop) until ``condition()`` holds, or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        await asyncio.sleep(0.05)


class Fleet:
    """Consumers and pumps of one test, all stopped on exit however the test ends."""

    def __init__(self) -> None:
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> Fleet:
        await self._stack.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.__aexit__(None, None, None)

    async def start(self, consumer: AIOKafkaConsumer, handle: Handler | None = None) -> Pump:
        """Start ``consumer`` (first assignment done) and keep it polling until exit."""
        await self.start_idle(consumer)
        return self.pump(consumer, handle)

    async def start_idle(self, consumer: AIOKafkaConsumer) -> None:
        """Start ``consumer`` without polling it; it is stopped on exit."""
        self._stack.push_async_callback(consumer.stop)
        await consumer.start()

    def pump(self, consumer: AIOKafkaConsumer, handle: Handler | None = None) -> Pump:
        """Keep a started ``consumer`` polling until exit."""
        pump = Pump(consumer, handle)
        self._stack.push_async_callback(pump.stop)
        return pump


def partitions(topic: str, count: int) -> frozenset[TopicPartition]:
    return frozenset(TopicPartition(topic, p) for p in range(count))


def fresh_topic(broker: Broker, count: int) -> tuple[str, str, frozenset[TopicPartition]]:
    """A new topic with ``count`` partitions, a new group id, and all the topic's partitions."""
    topic = broker.create_topic(count)
    return topic, broker.group(), partitions(topic, count)


def split_evenly(
    assignments: list[frozenset[TopicPartition]], everything: frozenset[TopicPartition]
) -> bool:
    """True once the members' assignments are disjoint, non-empty and cover ``everything``."""
    union: set[TopicPartition] = set()
    for assignment in assignments:
        if not assignment or union & assignment:
            return False
        union |= assignment
    return union == everything
