"""Runtime overhead of rebalance_guard on aiokafka: throughput and callback dispatch.

Throughput: two consumers in their own groups, one with a guarded listener
(``set_rebalance_listener``), one with a plain aiokafka listener doing the same work, started
together; then alternating windows in which one of them re-reads the whole topic a few times.
The figure is the median guarded/plain ratio of adjacent windows (goal >= 0.98), in wall time
and in this process's CPU time (steadier on a shared machine). aiokafka runs
listeners only during rebalances, so the fetch path is untouched by the guard: the ratio
measures noise, not cost, and the dispatch figures below are the guard's real price.
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
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import rebalance_guard  # noqa: E402
from aiokafka import AIOKafkaConsumer  # noqa: E402
from aiokafka.abc import ConsumerRebalanceListener  # noqa: E402
from aiokafka.admin import AIOKafkaAdminClient, NewTopic  # noqa: E402
from aiokafka.structs import TopicPartition  # noqa: E402
from rebalance_guard.aiokafka import (  # noqa: E402
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.aiokafka_support import make_consumer, produce  # noqa: E402

MESSAGES = 200_000
PASSES = 4
PARTITIONS = 4
ROUNDS = 6  # window pairs, order alternating
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


def _consumer(bootstrap: str, topic: str, guarded: bool) -> AIOKafkaConsumer:
    consumer = make_consumer(bootstrap, f"bench-{uuid.uuid4().hex[:8]}", max_poll_records=5_000)
    if guarded:
        set_rebalance_listener(consumer, Guarded())
        consumer.subscribe([topic])
    else:
        consumer.subscribe([topic], listener=Plain())
    return consumer


Rates = tuple[float, float]  # messages per wall-clock second, per second of this process's CPU


async def _window(consumer: AIOKafkaConsumer) -> Rates:
    """Rates while ``consumer`` reads the whole topic PASSES times from the start.

    CPU time counts only this process, so it is far less disturbed by other load on the
    machine than wall time; the guard could only ever cost CPU here.
    """
    seen = 0
    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(PASSES):
        await consumer.seek_to_beginning()
        in_pass = 0
        while in_pass < MESSAGES:
            batch = await consumer.getmany(timeout_ms=1_000)
            for records in batch.values():
                in_pass += len(records)
                sum(int(record.value) for record in records)  # the "processing"
        seen += in_pass
    return seen / (time.perf_counter() - started), seen / (time.process_time() - cpu_started)


async def _guard_calls_per_message(consumer: AIOKafkaConsumer) -> float:
    """Calls into rebalance_guard per message during one window: the guard's per-message cost."""
    package = str(Path(rebalance_guard.__file__).parent)
    calls = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal calls
        if event == "call" and frame.f_code.co_filename.startswith(package):
            calls += 1

    sys.setprofile(profile)
    try:
        await _window(consumer)
    finally:
        sys.setprofile(None)
    return calls / (PASSES * MESSAGES)


async def _throughput(bootstrap: str, topic: str) -> tuple[list[tuple[Rates, Rates]], float]:
    """(plain, guarded) messages/second per round, and guard calls per message while consuming.

    Windows alternate plain-guarded, guarded-plain.

    Both consumers (own groups, whole topic) are started once; each window is short enough
    that the idle one stays in its group.
    """
    consumers = {g: _consumer(bootstrap, topic, g) for g in (False, True)}
    try:
        await asyncio.gather(*(c.start() for c in consumers.values()))
        for consumer in consumers.values():
            await _window(consumer)  # warm-up: broker caches, first fetches
        rounds = []
        for round_ in range(ROUNDS):
            order = (False, True) if round_ % 2 == 0 else (True, False)
            rates = {g: await _window(consumers[g]) for g in order}
            rounds.append((rates[False], rates[True]))
        return rounds, await _guard_calls_per_message(consumers[True])
    finally:
        await asyncio.gather(*(c.stop() for c in consumers.values()))


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
    rounds, guard_calls = await _throughput(bootstrap, topic)

    def median(values: Iterable[float]) -> float:
        return statistics.median(values)

    wall = [(plain[0], guarded[0]) for plain, guarded in rounds]
    cpu = [(plain[1], guarded[1]) for plain, guarded in rounds]
    plain_us, guarded_us = await _dispatch_us(bootstrap)
    return [
        ("consume, plain listener (median)", median(p for p, _ in wall), "msg/s"),
        ("consume, guarded listener (median)", median(g for _, g in wall), "msg/s"),
        ("consume ratio guarded/plain, wall time", median(g / p for p, g in wall), "ratio"),
        ("consume ratio guarded/plain, CPU time", median(g / p for p, g in cpu), "ratio"),
        ("rebalance_guard calls per consumed message", guard_calls, "calls"),
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
    from runtime_overhead import main  # one driver: starts the broker, prints the rows

    raise SystemExit(main(["--clients", "aiokafka"]))
