"""A legacy kafka-python consumer, as written before rebalance-guard (migrate me).

The consumer is injected into a one-argument listener's constructor so that
``on_partitions_revoked`` can commit what was processed before the partitions move: the
pattern kafka-python's docs lead to. On kafka-python 3 that commit raises ``RuntimeError:
Cannot block on net.run() from the IO thread itself``; ``rebalance-guard migrate`` turns it
into a KIP-1306 listener whose callbacks get a view that can commit.

Usage: ``python kafka_python_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each processed
record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import signal
import sys
import time
from types import FrameType

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition


class CommitOnRevoke(ConsumerRebalanceListener):
    """Commit the processed offsets before partitions are handed to another member."""

    def __init__(self, consumer: KafkaConsumer, label: str) -> None:
        self.consumer = consumer
        self.label = label

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        # Everything poll() returned has been processed: commit the positions.
        self.consumer.commit()
        numbers = sorted(tp.partition for tp in revoked)
        print(self.label, "revoked", numbers, file=sys.stderr, flush=True)

    def on_partitions_lost(self, lost: set[TopicPartition]) -> None:
        # Already owned by another member: committing would fail, so just let go.
        numbers = sorted(tp.partition for tp in lost)
        print(self.label, "lost", numbers, file=sys.stderr, flush=True)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        numbers = sorted(tp.partition for tp in assigned)
        print(self.label, "assigned", numbers, file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap,
        group_id=group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        # Short group timeouts: the tests fence and rebalance members in seconds.
        max_poll_interval_ms=10_000,
        session_timeout_ms=6_000,
        heartbeat_interval_ms=1_000,
    )
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


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
