"""A legacy aiokafka consumer, as written before rebalance-guard (migrate me).

The listener follows aiokafka's own documentation: the consumer is injected through the
constructor and ``on_partitions_revoked`` commits through it. ``rebalance-guard migrate``
turns it into a KIP-1306 listener whose async callbacks get a view instead.

Usage: ``python aiokafka_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each processed
record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Set as AbstractSet

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener, TopicPartition


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commit the processed offsets before partitions are handed to another member."""

    def __init__(self, consumer: AIOKafkaConsumer, label: str) -> None:
        self.consumer = consumer
        self.label = label

    async def on_partitions_revoked(self, revoked: AbstractSet[TopicPartition]) -> None:
        # Everything getmany() returned has been processed: commit the positions (aiokafka
        # refuses a commit with nothing assigned, as on the first join).
        if revoked:
            await self.consumer.commit()
        numbers = sorted(tp.partition for tp in revoked)
        print(self.label, "revoked", numbers, file=sys.stderr, flush=True)

    async def on_partitions_lost(self, lost: AbstractSet[TopicPartition]) -> None:
        # Already owned by another member: committing would fail, so just let go (aiokafka itself never calls it).
        numbers = sorted(tp.partition for tp in lost)
        print(self.label, "lost", numbers, file=sys.stderr, flush=True)

    async def on_partitions_assigned(self, assigned: AbstractSet[TopicPartition]) -> None:
        numbers = sorted(tp.partition for tp in assigned)
        print(self.label, "assigned", numbers, file=sys.stderr, flush=True)


async def consume(bootstrap: str, topic: str, group: str, outfile: str) -> None:
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    consumer = AIOKafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        # Short group timeouts: the tests fence and rebalance members in seconds.
        max_poll_interval_ms=10_000,
        session_timeout_ms=6_000,
        heartbeat_interval_ms=1_000,
    )
    listener = CommitOnRevoke(consumer, outfile)
    consumer.subscribe(topics=[topic], listener=listener)
    await consumer.start()
    try:
        with open(outfile, "a", encoding="utf-8") as out:
            while not stopping.is_set():
                batches = await consumer.getmany(timeout_ms=200)
                for tp, records in batches.items():
                    for record in records:
                        await asyncio.sleep(0.005)  # the work
                        out.write(f"{tp.partition} {record.offset} {record.value.decode()}\n")
                        out.flush()
    finally:
        await consumer.stop()


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    asyncio.run(consume(bootstrap, topic, group, outfile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
