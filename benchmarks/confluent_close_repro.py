"""Reproductions for two close() findings of the chaos work (benchmarks/RESULTS.md, issue 22).

``destroy`` (default): the integration scenarios closing a cooperative member, N times each;
every failure is printed with its full traceback and the type of what was raised. Now and
then ``close()`` raises ``KafkaError{_DESTROY, "Failed to get assignment: Local: Broker handle
destroyed for termination"}``: the revoke callback librdkafka runs inside ``close()`` (after
the adapter's own revocation) calls ``consumer.assignment()`` on a handle being destroyed
(rebalance_guard/confluent_kafka.py ``_revoke``, confluent_kafka_aio.py ``_revoke``). For the
sync ``Consumer`` the raised object is a bare ``KafkaError``, not an exception.

``dead-broker``: two cooperative members through the drop-in ``Consumer``, the broker is
SIGKILLed, then each member closes. The listener (no ``on_partitions_lost``, so lost goes to
revoked, the KIP-1306 default) prints every callback: the partitions the adapter revoked
before ``close()`` are told again when librdkafka reports them lost during it.

    python benchmarks/confluent_close_repro.py [destroy [RUNS]] | dead-broker
"""

from __future__ import annotations

import asyncio
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from tests.integration.broker import (  # noqa: E402
    Broker,
    KafkaCluster,
    confluent_group_config,
    start_broker,
)


def _describe() -> str:
    kind, value = sys.exc_info()[:2]
    is_exception = isinstance(kind, type) and issubclass(kind, BaseException)
    lines = [f"raised {kind!r} (a BaseException: {is_exception}): {value}"]
    if is_exception:
        lines.append(traceback.format_exc())
    else:  # traceback.format_exc() itself fails on it (no __suppress_context__)
        tb = sys.exc_info()[2]
        lines.append("".join(traceback.format_tb(tb)))
    return "\n".join(lines)


def destroy(runs: int) -> int:
    import tests.integration.test_confluent_kafka_aio_commit_on_revoke as aio
    import tests.integration.test_confluent_kafka_commit_on_revoke as sync

    scenarios = {
        "AIOConsumer cooperative, bare commit": lambda broker: asyncio.run(
            aio._scenario(broker, "cooperative", "bare")
        ),
        "Consumer cooperative (the test as is)": lambda broker: (
            sync.test_every_message_processed_once_across_rebalances(broker, "cooperative")
        ),
    }
    keep = [True]
    brokers = start_broker(keep)
    broker = next(brokers)
    failures = 0
    try:
        for name, scenario in scenarios.items():
            for run in range(1, runs + 1):
                started = time.monotonic()
                try:
                    scenario(broker)
                    print(f"{name}: run {run} ok in {time.monotonic() - started:.1f}s", flush=True)
                except KeyboardInterrupt:
                    raise
                except:  # noqa: E722 - the sync close() raises a KafkaError, no exception
                    failures += 1
                    print(f"{name}: run {run} FAILED\n{_describe()}", flush=True)
    finally:
        next(brokers, None)
    return 1 if failures else 0


def dead_broker() -> int:
    from rebalance_guard.confluent_kafka import Consumer, RebalanceListener, set_rebalance_listener

    class Printing(RebalanceListener):
        def __init__(self, name: str) -> None:
            self.name = name

        def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            print(f"{self.name}: revoked {[p.partition for p in partitions]}", flush=True)
            try:
                consumer.commit()
            except Exception as exc:
                print(f"{self.name}:   commit raised {exc}", flush=True)

    cluster = KafkaCluster.start(1)
    try:
        broker = Broker(cluster.bootstrap, "kafka", cluster=cluster)
        topic, group = broker.create_topic(4), broker.group()
        consumers = []
        for name in ("a", "b"):
            consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group,
                                 "enable.auto.commit": False,
                                 **confluent_group_config("cooperative")})  # fmt: skip
            set_rebalance_listener(consumer, Printing(name))
            consumer.subscribe([topic])
            consumers.append(consumer)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(c.assignment() for c in consumers):
            for consumer in consumers:
                consumer.poll(0.1)
        print("assigned:", [[p.partition for p in c.assignment()] for c in consumers])
        cluster.nodes[0].kill()
        print("broker SIGKILLed; closing a, then b", flush=True)
        for consumer in consumers:
            consumer.close()
    finally:
        cluster.stop()
        cluster.remove()
    return 0


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "destroy"
    if mode == "dead-broker":
        sys.exit(dead_broker())
    sys.exit(destroy(int(sys.argv[2]) if len(sys.argv) > 2 else 30))
