"""Runtime overhead of rebalance_guard on confluent-kafka: throughput and callback dispatch.

Throughput: consumers in their own groups on the same topic: a
``rebalance_guard.confluent_kafka.Consumer`` with a guarded listener, and two plain
``confluent_kafka.Consumer`` with plain ``on_assign``/``on_revoke`` callbacks doing the same
work. All join once; then rotating windows in which one of them re-reads the whole topic
(seek to the beginning, ``poll()`` per message). The figure is the median guarded/plain ratio
of adjacent windows (goal >= 0.98), in wall time and in CPU time of the polling thread; the
second plain consumer gives the same ratios for two identical consumers: the noise floor.
``poll()`` is confluent's own C method on both and the listener runs only during
rebalances, so the ratio measures noise, not cost; the dispatch figures are the guard's price.
Dispatch: one ``on_assign(consumer, partitions)`` as librdkafka calls it, through the adapter
(fresh view, liveness, ``assign()`` with recorded seeks) against a plain callback that calls
``assign()`` itself (what confluent does after a callback that did not).

    python benchmarks/runtime_confluent_kafka.py     # starts the test broker
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import confluent_kafka  # noqa: E402
from confluent_kafka import OFFSET_BEGINNING, TopicPartition  # noqa: E402
from rebalance_guard.confluent_kafka import (  # noqa: E402
    Consumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)
from runtime_rounds import CONFLUENT_IDLE, orders, paired_us, ratio_rows  # noqa: E402

from tests.integration.broker import Broker  # noqa: E402
from tests.integration.confluent_kafka_support import config, poll_until, produce  # noqa: E402

MESSAGES = 1_000_000
PARTITIONS = 4
ROUNDS = 12  # window triples, order rotating: adjacent windows share the machine's load
DISPATCHES = 5_000


class Guarded(RebalanceListener):
    def __init__(self) -> None:
        self.assigned: list[TopicPartition] = []

    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.assigned = partitions


class Plain:
    def __init__(self) -> None:
        self.assigned: list[TopicPartition] = []

    def on_assign(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]
    ) -> None:
        self.assigned = partitions

    def on_revoke(
        self, consumer: confluent_kafka.Consumer, partitions: list[TopicPartition]
    ) -> None:
        pass


def _consumers(broker: Broker, topic: str) -> dict[str, confluent_kafka.Consumer]:
    """Joined consumers, each owning the whole topic: guarded, plain, and a second plain one."""
    guarded = Consumer({**config(broker), **CONFLUENT_IDLE})
    set_rebalance_listener(guarded, Guarded())
    guarded.subscribe([topic])
    consumers: dict[str, confluent_kafka.Consumer] = {"guarded": guarded}
    for name in ("plain", "plain again"):
        plain = confluent_kafka.Consumer({**config(broker), **CONFLUENT_IDLE})
        callbacks = Plain()
        plain.subscribe([topic], on_assign=callbacks.on_assign, on_revoke=callbacks.on_revoke)
        consumers[name] = plain
    poll_until(
        list(consumers.values()),
        lambda: all(len(c.assignment()) == PARTITIONS for c in consumers.values()),
        what="assignment",
    )
    return consumers


def _window(consumer: confluent_kafka.Consumer, topic: str) -> tuple[float, float]:
    """Messages per wall second and per CPU second of the polling thread, re-reading the topic.

    CPU time of this thread is what a guard on the poll path would cost; it is much less
    disturbed by other processes on the machine than wall time.

    Timed from the first message to the last: after a seek librdkafka first waits out the
    fetch it has in flight (up to fetch.wait.max.ms), which is not consumer throughput.
    Between windows the consumer is paused, so each starts with nothing prefetched.
    """
    partitions = [TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(PARTITIONS)]
    for partition in partitions:
        consumer.seek(partition)
    consumer.resume(partitions)
    seen = total = 0
    started = cpu_started = 0.0
    while seen < MESSAGES:
        message = consumer.poll(1.0)
        if message is not None and message.error() is None:
            if not seen:
                started, cpu_started = time.perf_counter(), time.thread_time()
            seen += 1
            total += int(message.value() or 0)  # the "processing"
    elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
    consumer.pause(partitions)
    return (seen - 1) / elapsed, (seen - 1) / cpu


def _throughput(broker: Broker, topic: str) -> list[dict[str, tuple[float, float]]]:
    """Messages/second of each consumer per round; the order rotates from round to round.

    "plain again" against "plain" is the control: the spread of a ratio with no difference.
    """
    consumers = _consumers(broker, topic)
    try:
        for consumer in consumers.values():
            _window(consumer, topic)  # warm-up: broker caches, first fetches
        rounds = []
        for order in orders(ROUNDS):
            rounds.append({name: _window(consumers[name], topic) for name in order})
        return rounds
    finally:
        for consumer in consumers.values():
            consumer.close()


def _dispatch_us(broker: Broker) -> tuple[float, float, float]:
    """Microseconds per on_assign as librdkafka calls it: plain, guarded, guarded minus plain.

    Medians over back-to-back pairs (order alternating): ``assign()`` is a round trip to
    librdkafka's thread whose cost swings with the machine's load, so only paired calls
    isolate what the guard adds.
    """
    parts = [TopicPartition("bench", p) for p in range(PARTITIONS)]
    consumer = Consumer(config(broker))  # not subscribed: assign() is local, no rebalance
    try:
        plain = Plain()

        def plain_on_assign(c: confluent_kafka.Consumer, partitions: list[TopicPartition]) -> None:
            plain.on_assign(c, partitions)
            c.assign(partitions)  # what confluent does after a callback that did not

        set_rebalance_listener(consumer, Guarded())
        guarded: Any = consumer._rebalance.on_assign  # what confluent's subscribe() was given
        times: dict[Any, list[float]] = {plain_on_assign: [], guarded: []}
        for i in range(DISPATCHES):
            for callback in (plain_on_assign, guarded) if i % 2 else (guarded, plain_on_assign):
                started = time.perf_counter()
                callback(consumer, parts)
                times[callback].append((time.perf_counter() - started) * 1e6)
        return paired_us(times[plain_on_assign], times[guarded])
    finally:
        consumer.close()


def measure(broker: Broker) -> list[tuple[str, float, str]]:
    """Rows (name, value, unit) for benchmarks/runtime_overhead.py."""
    topic = broker.create_topic(PARTITIONS)
    produce(broker, topic, MESSAGES, PARTITIONS)
    rounds = _throughput(broker, topic)
    plain_us, guarded_us, overhead_us = _dispatch_us(broker)
    return [
        *ratio_rows(rounds, cpu="polling-thread CPU"),
        ("dispatch on_assign + assign, plain (median)", plain_us, "us"),
        ("dispatch on_assign + assign, guarded (median)", guarded_us, "us"),
        ("dispatch overhead per callback (median of pairs)", overhead_us, "us"),
    ]


if __name__ == "__main__":
    from runtime_overhead import main  # one driver: starts the broker, prints the rows

    raise SystemExit(main(["--clients", "confluent_kafka"]))
