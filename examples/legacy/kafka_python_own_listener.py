"""A legacy kafka-python consumer wrapper that is its own listener (migrate me).

A shape real code uses (REAL_WORLD.md, "Reaching the consumer"): the class that owns the
consumer derives from ``ConsumerRebalanceListener`` and registers itself,
``self._consumer.subscribe([topic], listener=self)``; its revoke callback commits with a bare
``commit()``, KIP-1306's own example. On kafka-python 3 that commit raises ``RuntimeError:
Cannot block on net.run() from the IO thread itself``; ``rebalance-guard migrate`` makes the
class a KIP-1306 listener registered with ``set_rebalance_listener`` whose callbacks commit
through the view.

Usage: ``python kafka_python_own_listener.py BOOTSTRAP TOPIC GROUP OUTFILE``. Each processed
record is appended to OUTFILE as ``partition offset value``; SIGTERM stops it cleanly.
"""

from __future__ import annotations

import signal
import sys
import time
from types import FrameType

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition


class Tailer(ConsumerRebalanceListener):
    """Consumes one topic and commits what it processed when partitions move away."""

    def __init__(self, bootstrap: str, group: str, label: str) -> None:
        self._consumer = KafkaConsumer(
            bootstrap_servers=bootstrap,
            group_id=group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            # Short group timeouts: the tests fence and rebalance members in seconds.
            max_poll_interval_ms=10_000,
            session_timeout_ms=6_000,
            heartbeat_interval_ms=1_000,
        )
        self.label = label
        self.stopping = False

    def stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def run(self, topic: str) -> None:
        self._consumer.subscribe([topic], listener=self)
        with open(self.label, "a", encoding="utf-8") as out:
            while not self.stopping:
                for tp, records in self._consumer.poll(timeout_ms=200).items():
                    for record in records:
                        time.sleep(0.005)  # the work
                        out.write(f"{tp.partition} {record.offset} {record.value.decode()}\n")
                        out.flush()
        self._consumer.close()

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        # Everything poll() returned has been processed: commit the positions.
        self._consumer.commit()
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
    tailer = Tailer(bootstrap, group, outfile)
    signal.signal(signal.SIGTERM, tailer.stop)
    tailer.run(topic)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
