"""Runtime overhead of rebalance_guard on aiokafka: throughput and callback dispatch.

Throughput: three consumers in their own groups, one with a guarded listener
(``set_rebalance_listener``), two with a plain aiokafka listener doing the same work, started
together; then rotating windows in which one of them re-reads the whole topic a few times.
The figure is the median guarded/plain ratio of adjacent windows (goal >= 0.98), in wall time
and in this process's CPU time (steadier on a shared machine); the second plain consumer gives
the same ratios for two identical consumers: the noise floor. aiokafka runs
listeners only during rebalances, so the fetch path is untouched by the guard: the ratio
measures noise, not cost, and the dispatch figures below are the guard's real price.
Dispatch: one ``await listener.on_partitions_assigned(partitions)`` as aiokafka's coordinator
does it, through the adapter (fresh view, liveness, await check) against a plain listener.

    python benchmarks/runtime_aiokafka.py     # starts the test broker
"""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
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
from runtime_rounds import NAMES, orders, ratio_rows  # noqa: E402

from tests.integration.aiokafka_support import make_consumer, produce  # noqa: E402
from tests.integration.broker import Broker  # noqa: E402

MESSAGES = 200_000
PASSES = 4
PARTITIONS = 4
ROUNDS = 9  # window triples, order rotating
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


async def _throughput(bootstrap: str, topic: str) -> tuple[list[dict[str, Rates]], float]:
    """Rates of each consumer per round, and guard calls per message while consuming.

    Three consumers (own groups, whole topic): guarded, plain, and a second plain one (the
    control: plain again/plain is the spread of a ratio with no difference). They are started
    once; the order of the windows rotates from round to round, and each window is short
    enough that the idle ones stay in their groups.
    """
    consumers = {name: _consumer(bootstrap, topic, name == "guarded") for name in NAMES}
    try:
        await asyncio.gather(*(c.start() for c in consumers.values()))
        for consumer in consumers.values():
            await _window(consumer)  # warm-up: broker caches, first fetches
        rounds = []
        for order in orders(ROUNDS):
            rounds.append({name: await _window(consumers[name]) for name in order})
        return rounds, await _guard_calls_per_message(consumers["guarded"])
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
    plain_us, guarded_us = await _dispatch_us(bootstrap)
    return [
        *ratio_rows(rounds, cpu="process CPU"),
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


def measure(broker: Broker) -> list[tuple[str, float, str]]:
    """Rows (name, value, unit) for benchmarks/runtime_overhead.py."""
    topic = asyncio.run(_create_topic(broker.bootstrap))
    return asyncio.run(_measure(broker.bootstrap, topic))


if __name__ == "__main__":
    from runtime_overhead import main  # one driver: starts the broker, prints the rows

    raise SystemExit(main(["--clients", "aiokafka"]))
