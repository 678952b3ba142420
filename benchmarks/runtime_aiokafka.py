"""Runtime overhead of rebalance_guard on aiokafka: throughput and callback dispatch.

Throughput: the same topic is consumed from the start by fresh groups, alternately with a
guarded listener (``set_rebalance_listener``) and a plain aiokafka listener doing the same
work; the median of each is reported with their ratio (goal >= 0.98). aiokafka runs listeners
only during rebalances, so the fetch path itself is untouched by the guard.
Dispatch: one ``await listener.on_partitions_assigned(partitions)`` as aiokafka's coordinator
does it, through the adapter (fresh view, liveness, await check) against a plain listener.

    python benchmarks/runtime_aiokafka.py     # starts its own tansu broker
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aiokafka.abc import ConsumerRebalanceListener  # noqa: E402
from aiokafka.admin import AIOKafkaAdminClient, NewTopic  # noqa: E402
from aiokafka.structs import TopicPartition  # noqa: E402
from rebalance_guard.aiokafka import (  # noqa: E402
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.test_aiokafka_support import make_consumer, produce  # noqa: E402

MESSAGES = 400_000
PARTITIONS = 4
ROUNDS = 5  # per variant, interleaved, order alternating
DISPATCHES = 20_000


class Guarded(RebalanceListener):
    def __init__(self) -> None:
        self.assigned: AbstractSet[TopicPartition] = frozenset()

    def on_partitions_assigned(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.assigned = partitions


class Plain(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self) -> None:
        self.assigned: AbstractSet[TopicPartition] = frozenset()

    def on_partitions_revoked(self, revoked: AbstractSet[TopicPartition]) -> None:
        pass

    def on_partitions_assigned(self, assigned: AbstractSet[TopicPartition]) -> None:
        self.assigned = assigned


async def _rate(bootstrap: str, topic: str, guarded: bool) -> float:
    """Messages/second from the first assignment to the last record, for one fresh group."""
    consumer = make_consumer(bootstrap, f"bench-{uuid.uuid4().hex[:8]}", max_poll_records=5_000)
    if guarded:
        set_rebalance_listener(consumer, Guarded())
        consumer.subscribe([topic])
    else:
        consumer.subscribe([topic], listener=Plain())
    try:
        await consumer.start()
        seen = total = 0
        started = time.perf_counter()
        while seen < MESSAGES:
            batch = await consumer.getmany(timeout_ms=1_000)
            for records in batch.values():
                seen += len(records)
                total += sum(int(record.value) for record in records)  # the "processing"
        elapsed = time.perf_counter() - started
        assert total == MESSAGES * (MESSAGES - 1) // 2, "a message was missed or duplicated"
        return MESSAGES / elapsed
    finally:
        await consumer.stop()


async def _dispatch_us(bootstrap: str) -> tuple[float, float]:
    """Microseconds per on_partitions_assigned dispatch: (plain, guarded), best of 5."""
    parts = frozenset(TopicPartition("bench", p) for p in range(PARTITIONS))
    consumer = make_consumer(bootstrap, "bench-dispatch")
    try:
        plain: Any = Plain()
        set_rebalance_listener(consumer, Guarded())
        guarded: Any = consumer._subscription.listener  # what aiokafka's coordinator calls
        results = []
        for listener in (plain, guarded):
            best = float("inf")
            for _ in range(5):
                started = time.perf_counter()
                for _ in range(DISPATCHES):
                    result = listener.on_partitions_assigned(parts)
                    if asyncio.iscoroutine(result):  # exactly aiokafka's dispatch
                        await result
                best = min(best, (time.perf_counter() - started) / DISPATCHES * 1e6)
            results.append(best)
        return results[0], results[1]
    finally:
        await consumer.stop()


async def _measure(bootstrap: str, topic: str) -> list[tuple[str, float, str]]:
    rates: dict[bool, list[float]] = {False: [], True: []}
    await _rate(bootstrap, topic, guarded=False)  # warm-up: broker caches, imports
    for round_ in range(ROUNDS):
        for guarded in (False, True) if round_ % 2 else (True, False):
            rates[guarded].append(await _rate(bootstrap, topic, guarded))
    plain_rate, guarded_rate = (statistics.median(rates[g]) for g in (False, True))
    plain_us, guarded_us = await _dispatch_us(bootstrap)
    return [
        ("consume, plain listener (median)", plain_rate, "msg/s"),
        ("consume, guarded listener (median)", guarded_rate, "msg/s"),
        ("consume ratio guarded/plain", guarded_rate / plain_rate, "ratio"),
        ("dispatch on_partitions_assigned, plain", plain_us, "us"),
        ("dispatch on_partitions_assigned, guarded", guarded_us, "us"),
        ("dispatch overhead per callback", guarded_us - plain_us, "us"),
    ]


async def _create_topic(bootstrap: str) -> str:
    topic = f"bench-{uuid.uuid4().hex[:10]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, PARTITIONS, 1)])
    finally:
        await admin.close()
    await produce(bootstrap, topic, range(MESSAGES))
    return topic


def measure(bootstrap: str) -> list[tuple[str, float, str]]:
    """Rows (name, value, unit) for benchmarks/runtime_overhead.py."""
    topic = asyncio.run(_create_topic(bootstrap))
    return asyncio.run(_measure(bootstrap, topic))


if __name__ == "__main__":
    from tests.integration.broker import start_broker

    brokers = start_broker()
    broker = next(brokers)
    try:
        for name, value, unit in measure(broker.bootstrap):
            print(f"aiokafka  {name:<44} {value:>12.3f}  {unit}", flush=True)
    finally:
        next(brokers, None)  # resumes the generator past its yield: stops the broker
