"""A legacy confluent-kafka consumer whose callbacks go through the application's own
subscribe helper (REAL_WORLD.md: "a helper that takes the callback as a parameter"), as
written before rebalance-guard (migrate me).

``subscribe_with(consumer, topics, on_assign=..., on_revoke=..., on_lost=...)`` registers
whatever callbacks its caller passes; they start each assigned partition at an explicit
offset with ``consumer.assign(partitions)`` and commit what was processed on revoke.
``rebalance-guard migrate`` makes the helper register a listener calling them with the
restricted view (its ``Callable`` annotations now take a ``RebalanceConsumer``), and turns
the callbacks' ``assign`` into ``seek``.

Usage: ``python confluent_helper_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each processed
record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from types import FrameType

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


def subscribe_with(
    consumer: Consumer,
    topics: list[str],
    on_assign: Callable[[Consumer, list[TopicPartition]], None] | None = None,
    on_revoke: Callable[[Consumer, list[TopicPartition]], None] | None = None,
    on_lost: Callable[[Consumer, list[TopicPartition]], None] | None = None,
) -> None:
    """The application's one place that subscribes, with the callbacks its caller passes."""
    consumer.subscribe(topics, on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            # Short group timeouts: the tests fence and rebalance members in seconds.
            "max.poll.interval.ms": 10_000,
            "session.timeout.ms": 6_000,
            "heartbeat.interval.ms": 1_000,
        }
    )
    processed: dict[int, int] = {}  # partition -> last processed offset

    # Start each partition at its committed offset, or at the beginning if there is none.
    def on_assign(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        committed = consumer.committed(partitions, timeout=10)
        for tp, done in zip(partitions, committed, strict=True):
            tp.offset = done.offset if done.offset >= 0 else OFFSET_BEGINNING
        numbers = sorted(tp.partition for tp in partitions)
        print(outfile, "assigned", numbers, file=sys.stderr, flush=True)
        consumer.assign(partitions)

    def on_revoke(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        offsets = [
            TopicPartition(tp.topic, tp.partition, processed.pop(tp.partition) + 1)
            for tp in partitions
            if tp.partition in processed
        ]
        if offsets:
            consumer.commit(offsets=offsets, asynchronous=False)
        numbers = sorted(tp.partition for tp in partitions)
        print(outfile, "revoked", numbers, file=sys.stderr, flush=True)
        consumer.unassign()

    # Already owned by another member: committing would fail, so just let go.
    def on_lost(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        for tp in partitions:
            processed.pop(tp.partition, None)
        numbers = sorted(tp.partition for tp in partitions)
        print(outfile, "lost", numbers, file=sys.stderr, flush=True)
        consumer.unassign()

    subscribe_with(consumer, [topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    with open(outfile, "a", encoding="utf-8") as out:
        while not stopping:
            msg = consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            time.sleep(0.005)  # the work
            value = msg.value() or b""
            out.write(f"{msg.partition()} {msg.offset()} {value.decode()}\n")
            out.flush()
            processed[msg.partition() or 0] = msg.offset() or 0
    consumer.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
