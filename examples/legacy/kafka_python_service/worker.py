"""The service's consume loop: creates the consumer and registers the listener."""

from __future__ import annotations

import signal
import time
from types import FrameType

from kafka import KafkaConsumer

from kafka_python_service.listeners import CommitOnRevoke


def make_consumer(bootstrap: str, group: str) -> KafkaConsumer:
    return KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        # Short group timeouts: the tests fence and rebalance members in seconds.
        max_poll_interval_ms=10_000,
        session_timeout_ms=6_000,
        heartbeat_interval_ms=1_000,
    )


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    consumer = make_consumer(bootstrap, group)
    consumer.subscribe([topic], listener=CommitOnRevoke(consumer, outfile))
    with open(outfile, "a", encoding="utf-8") as out:
        while not stopping:
            for tp, records in consumer.poll(timeout_ms=200).items():
                for record in records:
                    time.sleep(0.005)  # the work
                    out.write(f"{tp.partition} {record.offset} {record.value.decode()}\n")
                    out.flush()
    consumer.close()
    return 0
