"""A legacy confluent-kafka service written the way application code writes it (migrate me).

Shapes from a sample of public applications: the service's own static methods are the
callbacks (``on_assign=self._on_assign``), registered from a decorated ``run()``; the
assigned callback starts every partition at its committed offset by assigning
``TopicPartition(tp.topic, tp.partition, OFFSET_STORED)`` for each one; the revoke callback
prints the consumer it got and commits with a bare synchronous ``commit()``; the lost
callback only logs. ``rebalance-guard migrate`` makes the service its own
``rebalance_guard.confluent_kafka.RebalanceListener``: the static methods gain ``self``, the
assign becomes seeks on the view, the printed consumer is the view.

Usage: ``python confluent_app_shapes_consumer.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each
processed record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it
cleanly.
"""

from __future__ import annotations

import functools
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType

from confluent_kafka import OFFSET_STORED, Consumer, KafkaError, KafkaException, TopicPartition


def logged(method: Callable[[Service], None]) -> Callable[[Service], None]:
    """Log around the service's loop (real services decorate it with retries or metrics)."""

    @functools.wraps(method)
    def wrapper(self: Service) -> None:
        print(self.label, "starting", file=sys.stderr, flush=True)
        method(self)
        print(self.label, "stopped", file=sys.stderr, flush=True)

    return wrapper


class Service:
    def __init__(self, bootstrap: str, topic: str, group: str, label: str) -> None:
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
        self.topic = topic
        self.label = label
        self.stopping = False

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    @logged
    def run(self) -> None:
        self.consumer.subscribe(
            [self.topic],
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_lost,
        )
        with open(self.label, "a", encoding="utf-8") as out:
            while not self.stopping:
                msg = self.consumer.poll(0.2)
                if msg is None or msg.error():
                    continue
                time.sleep(0.005)  # the work
                value = msg.value() or b""
                out.write(f"{msg.partition()} {msg.offset()} {value.decode()}\n")
                out.flush()
        self.consumer.close()

    @staticmethod
    def _on_assign(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        # Start each partition where the group committed it.
        consumer.assign(
            [TopicPartition(tp.topic, tp.partition, OFFSET_STORED) for tp in partitions]
        )
        print("assigned", sorted(tp.partition for tp in partitions), file=sys.stderr, flush=True)

    def _on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
        print(f"{self.label} revoking {len(partitions)} from {consumer!r}", file=sys.stderr)
        # Everything poll() returned has been processed: commit the positions, and wait.
        try:
            consumer.commit(asynchronous=False)
        except KafkaException as error:
            if error.args[0].code() != KafkaError._NO_OFFSET:  # nothing consumed yet
                raise
        print("revoked", sorted(tp.partition for tp in partitions), file=sys.stderr, flush=True)

    # Already owned by another member: committing would fail, so just let go.
    @staticmethod
    def _on_lost(consumer: Consumer, partitions: list[TopicPartition]) -> None:
        print("lost", sorted(tp.partition for tp in partitions), file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    bootstrap, topic, group, outfile = argv
    service = Service(bootstrap, topic, group, outfile)
    signal.signal(signal.SIGTERM, service.stop)
    service.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
