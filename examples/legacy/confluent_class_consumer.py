"""A legacy confluent-kafka consumer class whose callbacks are its own methods (migrate me).

The most common confluent shape in real code: the class that owns the consumer registers
``on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost``. ``_on_assign`` starts each partition at an explicit offset
with ``consumer.assign(partitions)``; ``_on_revoke`` commits what was processed (also on
``close()``, which revokes). ``rebalance-guard migrate`` makes the class its own
``rebalance_guard.confluent_kafka.RebalanceListener``: the callbacks become its
``on_partitions_*`` methods and get the restricted view, and the ``assign`` becomes seeks.

Usage: ``python confluent_class_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each processed
record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import signal
import sys
import time
from types import FrameType

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


class Worker:
    def __init__(self, bootstrap: str, topic: str, group: str, outfile: str) -> None:
        self._consumer = Consumer(
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
        self._topic = topic
        self._outfile = outfile
        self._processed: dict[int, int] = {}  # partition -> last processed offset
        self._stopping = False

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = True

    def run(self) -> None:
        self._consumer.subscribe(
            [self._topic],
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_lost,
        )
        with open(self._outfile, "a", encoding="utf-8") as out:
            while not self._stopping:
                msg = self._consumer.poll(0.2)
                if msg is None or msg.error():
                    continue
                time.sleep(0.005)  # the work
                value = msg.value() or b""
                out.write(f"{msg.partition()} {msg.offset()} {value.decode()}\n")
                out.flush()
                self._processed[msg.partition() or 0] = msg.offset() or 0
        self._consumer.close()

    def _log(self, what: str, partitions: list[TopicPartition]) -> None:
        numbers = sorted(tp.partition for tp in partitions)
        print(self._outfile, what, numbers, file=sys.stderr, flush=True)

    # Start each partition at its committed offset, or at the beginning if there is none.
    def _on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        committed = consumer.committed(partitions, timeout=10)
        for tp, done in zip(partitions, committed, strict=True):
            tp.offset = done.offset if done.offset >= 0 else OFFSET_BEGINNING
        self._log("assigned", partitions)
        consumer.assign(partitions)

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        offsets = [
            TopicPartition(tp.topic, tp.partition, self._processed.pop(tp.partition) + 1)
            for tp in partitions
            if tp.partition in self._processed
        ]
        if offsets:
            consumer.commit(offsets=offsets, asynchronous=False)
        self._log("revoked", partitions)

    # Already owned by another member: committing would fail, so just let go.
    def _on_lost(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        for tp in partitions:
            self._processed.pop(tp.partition, None)
        self._log("lost", partitions)


def main(argv: list[str]) -> int:
    worker = Worker(*argv)
    signal.signal(signal.SIGTERM, worker.stop)
    worker.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
