"""A legacy confluent-kafka asyncio consumer, as written before rebalance-guard (migrate me).

Written like confluent-kafka's own asyncio consumer example: an ``AIOConsumer``, ``async def``
callbacks passed by keyword that get the whole ``AIOConsumer`` and await its methods. This
program starts each assigned partition at an explicit offset with ``await
consumer.assign(partitions)`` and commits what it processed in ``on_revoke``.
``rebalance-guard migrate`` registers the callbacks through ``rebalance_guard.confluent_kafka_aio``
so that they get the restricted async view, and turns the ``assign`` into awaited seeks.

Usage: ``python confluent_aio_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each processed
record is appended to OUTFILE as ``partition offset value``; each commit is logged to stderr as
``committed {partition: offset}``; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import asyncio
import signal
import sys

from confluent_kafka import OFFSET_BEGINNING, TopicPartition
from confluent_kafka.aio import AIOConsumer


async def consume(bootstrap: str, topic: str, group: str, outfile: str) -> int:
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    consumer = AIOConsumer(
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
    async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        committed = await consumer.committed(partitions, timeout=10)
        for tp, done in zip(partitions, committed, strict=True):
            tp.offset = done.offset if done.offset >= 0 else OFFSET_BEGINNING
        numbers = sorted(tp.partition for tp in partitions)
        print(outfile, "assigned", numbers, file=sys.stderr, flush=True)
        await consumer.assign(partitions)

    async def on_revoke(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        offsets = [
            TopicPartition(tp.topic, tp.partition, processed.pop(tp.partition) + 1)
            for tp in partitions
            if tp.partition in processed
        ]
        if offsets:
            await consumer.commit(offsets=offsets, asynchronous=False)
            done = {tp.partition: tp.offset for tp in offsets}
            print(outfile, "committed", done, file=sys.stderr, flush=True)
        numbers = sorted(tp.partition for tp in partitions)
        print(outfile, "revoked", numbers, file=sys.stderr, flush=True)
        await consumer.unassign()

    # Already owned by another member: committing would fail, so just let go.
    async def on_lost(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
        for tp in partitions:
            processed.pop(tp.partition, None)
        numbers = sorted(tp.partition for tp in partitions)
        print(outfile, "lost", numbers, file=sys.stderr, flush=True)
        await consumer.unassign()

    await consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    with open(outfile, "a", encoding="utf-8") as out:
        while not stopping.is_set():
            msg = await consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            await asyncio.sleep(0.005)  # the work
            value = msg.value() or b""
            out.write(f"{msg.partition()} {msg.offset()} {value.decode()}\n")
            out.flush()
            processed[msg.partition() or 0] = msg.offset() or 0
    await consumer.close()
    return 0


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    return asyncio.run(consume(bootstrap, topic, group, outfile))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
