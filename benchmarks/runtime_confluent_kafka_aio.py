"""Runtime overhead of rebalance_guard on confluent-kafka's ``AIOConsumer``: throughput and
callback dispatch.

Throughput: consumers in their own groups on the same topic: a
``rebalance_guard.confluent_kafka_aio.AIOConsumer`` with a guarded listener, and two plain
``confluent_kafka.aio.AIOConsumer`` with plain ``async def`` ``on_assign``/``on_revoke``
callbacks doing the same work. All join once; then rotating windows in which one of them
re-reads the whole topic (seek to the beginning, ``await consume()`` batches, as an asyncio
service reads). The figure is the median guarded/plain ratio of adjacent windows (goal >= 0.98),
in wall time and in this process's CPU time; the second plain consumer gives the same ratios
for two identical consumers: the noise floor. The registration shadows ``consume()`` on the
guarded consumer (to deliver a batch before raising a callback error kept during it), so
unlike the sync consumer's the guarded message path runs one rebalance_guard call per
``consume()`` batch: the figures show what that costs.
Dispatch: one ``on_assign(consumer, partitions)`` as ``AIOConsumer``'s wrapper awaits it,
through the adapter (fresh view, liveness, await check, the callback's timing and record,
``assign()`` with recorded seeks) against a plain callback that awaits ``assign()`` itself.

    python benchmarks/runtime_confluent_kafka_aio.py     # starts its own test broker
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from confluent_kafka import OFFSET_BEGINNING, TopicPartition  # noqa: E402
from confluent_kafka.aio import AIOConsumer as PlainAIOConsumer  # noqa: E402
from rebalance_guard.confluent_kafka_aio import (  # noqa: E402
    AIOConsumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)
from runtime_rounds import CONFLUENT_IDLE, orders, paired_us, ratio_rows  # noqa: E402

from tests.integration.broker import Broker  # noqa: E402
from tests.integration.confluent_kafka_aio_support import poll_until  # noqa: E402
from tests.integration.confluent_kafka_support import config, produce  # noqa: E402

MESSAGES = 1_000_000
PARTITIONS = 4
BATCH = 1_000  # consume(num_messages=...): an asyncio service reads in batches
ROUNDS = 12  # window triples, order rotating: short adjacent windows share the machine's load
DISPATCHES = 2_000

Rates = tuple[float, float]  # messages per wall-clock second, per second of this process's CPU


class Guarded(RebalanceListener):
    def __init__(self) -> None:
        self.assigned: list[TopicPartition] = []

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.assigned = partitions


class Plain:
    def __init__(self) -> None:
        self.assigned: list[TopicPartition] = []

    async def on_assign(self, consumer: PlainAIOConsumer, partitions: list[TopicPartition]) -> None:
        self.assigned = partitions

    async def on_revoke(self, consumer: PlainAIOConsumer, partitions: list[TopicPartition]) -> None:
        pass


async def _consumers(broker: Broker, topic: str) -> dict[str, PlainAIOConsumer]:
    """Joined consumers, each owning the whole topic: guarded, plain, and a second plain one."""
    guarded = AIOConsumer({**config(broker), **CONFLUENT_IDLE})
    set_rebalance_listener(guarded, Guarded())
    await guarded.subscribe([topic])
    consumers: dict[str, PlainAIOConsumer] = {"guarded": guarded}
    for name in ("plain", "plain again"):
        plain = PlainAIOConsumer({**config(broker), **CONFLUENT_IDLE})
        callbacks = Plain()
        await plain.subscribe([topic], on_assign=callbacks.on_assign, on_revoke=callbacks.on_revoke)
        consumers[name] = plain

    async def joined() -> bool:
        sizes = [len(await c.assignment()) for c in consumers.values()]
        return all(size == PARTITIONS for size in sizes)

    await poll_until(list(consumers.values()), joined, what="assignment")
    return consumers


async def _window(consumer: PlainAIOConsumer, topic: str) -> Rates:
    """Messages per wall second and per CPU second of this process, re-reading the topic.

    Timed from the first message to the last: after a seek librdkafka first waits out the
    fetch it has in flight (up to fetch.wait.max.ms), which is not consumer throughput.
    Between windows the consumer is paused, so each starts with nothing prefetched.
    """
    partitions = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)]
    for partition in partitions:
        await consumer.seek(partition)
    await consumer.resume(partitions)
    seen = total = 0
    started = cpu_started = 0.0
    while seen < MESSAGES:
        for message in await consumer.consume(num_messages=BATCH, timeout=1.0):
            if message.error() is not None:
                continue
            if not seen:
                started, cpu_started = time.perf_counter(), time.process_time()
            seen += 1
            total += int(message.value() or 0)  # the "processing"
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    await consumer.pause(partitions)
    return seen / elapsed, seen / cpu


async def _throughput(broker: Broker, topic: str) -> list[dict[str, Rates]]:
    """Messages/second of each consumer per round; the order rotates from round to round.

    "plain again" against "plain" is the control: the spread of a ratio with no difference.
    """
    consumers = await _consumers(broker, topic)
    try:
        for consumer in consumers.values():
            await _window(consumer, topic)  # warm-up: broker caches, first fetches
        rounds = []
        for order in orders(ROUNDS):
            rounds.append({name: await _window(consumers[name], topic) for name in order})
        return rounds
    finally:
        for consumer in consumers.values():
            await consumer.close()


async def _dispatch_us(broker: Broker) -> tuple[float, float, float]:
    """Microseconds per on_assign as AIOConsumer awaits it: plain, guarded, guarded minus plain.

    Medians over back-to-back pairs (order alternating): ``assign()`` goes through the
    consumer's executor to librdkafka's thread, whose cost swings with the machine's load, so
    only paired calls isolate what the guard adds.
    """
    parts = [TopicPartition("bench", p) for p in range(PARTITIONS)]
    consumer = AIOConsumer(config(broker))  # not subscribed: assign() is local, no rebalance
    try:
        plain = Plain()

        async def plain_on_assign(c: PlainAIOConsumer, partitions: list[TopicPartition]) -> None:
            await plain.on_assign(c, partitions)
            await c.assign(partitions)  # what the adapter does after the listener's callback

        set_rebalance_listener(consumer, Guarded())
        guarded: Any = consumer.__dict__["_rebalance_guard_adapter"].on_assign  # subscribe()'s
        times: dict[Any, list[float]] = {plain_on_assign: [], guarded: []}
        for i in range(DISPATCHES):
            for callback in (plain_on_assign, guarded) if i % 2 else (guarded, plain_on_assign):
                started = time.perf_counter()
                await callback(consumer, parts)
                times[callback].append((time.perf_counter() - started) * 1e6)
        return paired_us(times[plain_on_assign], times[guarded])
    finally:
        await consumer.close()


async def _measure(broker: Broker, topic: str) -> list[tuple[str, float, str]]:
    rounds = await _throughput(broker, topic)
    plain_us, guarded_us, overhead_us = await _dispatch_us(broker)
    return [
        *ratio_rows(rounds, cpu="process CPU"),
        ("dispatch on_assign + assign, plain (median)", plain_us, "us"),
        ("dispatch on_assign + assign, guarded (median)", guarded_us, "us"),
        ("dispatch overhead per callback (median of pairs)", overhead_us, "us"),
    ]


def measure(broker: Broker) -> list[tuple[str, float, str]]:
    """Rows (name, value, unit) for benchmarks/runtime_overhead.py."""
    topic = broker.create_topic(PARTITIONS)
    produce(broker, topic, MESSAGES, PARTITIONS)
    return asyncio.run(_measure(broker, topic))


if __name__ == "__main__":
    from runtime_overhead import main  # one driver: starts the broker, prints the rows

    raise SystemExit(main(["--clients", "confluent_kafka_aio"]))
