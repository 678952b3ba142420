"""The service's consume loop: creates the consumer and registers the listener."""

from __future__ import annotations

import asyncio
import signal

from aiokafka import AIOKafkaConsumer

from .listeners import CommitOnRevoke


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
