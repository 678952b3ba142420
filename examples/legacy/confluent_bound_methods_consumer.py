"""A legacy confluent-kafka program registering another object's bound methods (migrate me).

A shape real code uses (confluent-kafka's own kafkatest client does it): a class holds the
consumer and the callbacks, and the driver registers the instance's methods,
``processor.consumer.subscribe([topic], on_assign=processor.on_assign, ...)``. The revoke
callback commits the consumed positions with a bare synchronous ``commit()``.
``rebalance-guard migrate`` makes the class its own
``rebalance_guard.confluent_kafka.RebalanceListener`` and registers the instance with
``rebalance_guard.confluent_kafka.subscribe``.

Usage: ``python confluent_bound_methods_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each
processed record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it
cleanly.
"""

from __future__ import annotations

import signal
import sys
import time
from types import FrameType

from confluent_kafka import Consumer, TopicPartition


class Processor:
    def __init__(self, bootstrap: str, group: str, label: str) -> None:
        self.consumer = Consumer(
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
        self.label = label
        self.stopping = False

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def _log(self, what: str, partitions: list[TopicPartition]) -> None:
        numbers = sorted(tp.partition for tp in partitions)
        print(self.label, what, numbers, file=sys.stderr, flush=True)

    def on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._log("assigned", partitions)

    def on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        # Everything poll() returned has been processed: commit the positions, and wait.
        consumer.commit(asynchronous=False)
        self._log("revoked", partitions)

    # Already owned by another member: committing would fail, so just let go.
    def on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        self._log("lost", partitions)


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    processor = Processor(bootstrap, group, outfile)
    signal.signal(signal.SIGTERM, processor.stop)
    processor.consumer.subscribe(
        [topic],
        on_assign=processor.on_assign,
        on_revoke=processor.on_revoke,
        on_lost=processor.on_lost,
    )
    with open(outfile, "a", encoding="utf-8") as out:
        while not processor.stopping:
            msg = processor.consumer.poll(0.2)
            if msg is None or msg.error():
                continue
            time.sleep(0.005)  # the work
            value = msg.value() or b""
            out.write(f"{msg.partition()} {msg.offset()} {value.decode()}\n")
            out.flush()
    processor.consumer.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
