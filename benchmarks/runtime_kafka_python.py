"""Runtime cost of rebalance_guard.kafka_python on the installed kafka-python major.

Throughput: the same topic consumed by a group whose listener is registered through
``set_rebalance_listener`` as a KIP-1306 ``RebalanceListener`` (guarded) and by one whose
listener is kafka-python's own ``ConsumerRebalanceListener`` passed to ``subscribe()`` (plain,
no rebalance_guard at all), and by a second plain group (the control: plain/plain shows the
run's noise floor), order rotating for several rounds; timed from the first record to the
last, so joining is excluded. The ratio is the median of the per-round ratios (their spread
shows the machine's noise). In steady state the guard adds one Python call per
poll(): its wrapper around the coordinator's poll.

Dispatch: one ``on_partitions_assigned`` through the path the client itself takes
(kafka-python 3: ``_invoke_rebalance_listener_async`` on the IO loop, where the guard hands
the callback to a worker thread; kafka-python 2: a direct call on the polling thread), with
the guarded listener against the plain one; the callback reads the assignment either way.

    python benchmarks/runtime_kafka_python.py       (starts the test broker, prints the rows)
"""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from runtime_rounds import Rates, orders, ratio_rows, ratios  # noqa: E402

if TYPE_CHECKING:
    from tests.integration.broker import Broker

MESSAGES = 150_000
PARTITIONS = 3
ROUNDS = 5
DISPATCHES = 2_000
GROUP_TIMEOUTS = {"max_poll_interval_ms": 10_000, "session_timeout_ms": 6_000,
                  "heartbeat_interval_ms": 1_000}  # fmt: skip


def _listeners(consumer: Any) -> tuple[Any, Any]:
    """(guarded, plain) listeners doing the same thing: read the assignment."""
    from kafka import ConsumerRebalanceListener
    from rebalance_guard.kafka_python import RebalanceListener

    class Guarded(RebalanceListener):
        def on_partitions_assigned(self, partitions: Any, view: Any) -> None:
            view.assignment()

    class Plain(ConsumerRebalanceListener):  # type: ignore[misc]  # untyped client
        def on_partitions_revoked(self, revoked: Any) -> None:
            consumer.assignment()

        def on_partitions_assigned(self, assigned: Any) -> None:
            consumer.assignment()

    return Guarded(), Plain()


def _consumer(bootstrap: str, group: str | None) -> Any:
    from kafka import KafkaConsumer

    return KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                         auto_offset_reset="earliest", **GROUP_TIMEOUTS)  # fmt: skip


def _produce(bootstrap: str, topic: str) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=20, batch_size=256 * 1024)
    try:
        payload = b"x" * 100
        for n in range(MESSAGES):
            producer.send(topic, payload, partition=n % PARTITIONS)
        producer.flush(timeout=120)
    finally:
        producer.close(timeout=10)


def _consume_rate(bootstrap: str, topic: str, guarded: bool) -> float:
    from rebalance_guard.kafka_python import set_rebalance_listener

    consumer = _consumer(bootstrap, f"bench-{uuid.uuid4().hex[:8]}")
    try:
        guarded_listener, plain_listener = _listeners(consumer)
        if guarded:
            set_rebalance_listener(consumer, guarded_listener)
            consumer.subscribe([topic])
        else:  # kafka-python alone, no rebalance_guard anywhere
            consumer.subscribe([topic], listener=plain_listener)
        seen, started = 0, 0.0
        deadline = time.monotonic() + 120
        while seen < MESSAGES:
            if time.monotonic() > deadline:
                raise RuntimeError(f"consumed only {seen} of {MESSAGES} messages in 120 s")
            batch = consumer.poll(timeout_ms=200, max_records=2_000)
            if batch and not started:
                started = time.perf_counter()
            seen += sum(len(records) for records in batch.values())
        return MESSAGES / (time.perf_counter() - started)
    finally:
        consumer.close(autocommit=False)


def _dispatch_us(bootstrap: str, topic: str, guarded: bool) -> float:
    from kafka import TopicPartition
    from rebalance_guard.kafka_python import set_rebalance_listener

    consumer = _consumer(bootstrap, f"bench-{uuid.uuid4().hex[:8]}")
    try:
        guarded_listener, plain_listener = _listeners(consumer)
        set_rebalance_listener(consumer, guarded_listener if guarded else plain_listener)
        partitions = {TopicPartition(topic, p) for p in range(PARTITIONS)}
        coordinator = consumer._coordinator
        if hasattr(coordinator, "_invoke_rebalance_listener_async"):  # kafka-python 3

            def once() -> None:
                consumer._net.run(coordinator._invoke_rebalance_listener_async,
                                  "on_partitions_assigned", partitions)  # fmt: skip
        else:  # kafka-python 2: the coordinator calls the listener inline

            def once() -> None:
                consumer._subscription.rebalance_listener.on_partitions_assigned(partitions)

        for _ in range(50):
            once()
        started = time.perf_counter()
        for _ in range(DISPATCHES):
            once()
        return (time.perf_counter() - started) / DISPATCHES * 1e6
    finally:
        consumer.close(autocommit=False)


def _poll_wrapper_us(bootstrap: str) -> float:
    """What the guard adds to every poll(): its coordinator-poll wrapper around a no-op."""
    from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

    consumer = _consumer(bootstrap, f"bench-{uuid.uuid4().hex[:8]}")
    try:
        set_rebalance_listener(consumer, RebalanceListener())
        state = consumer._rebalance_guard_state
        real, state._poll = state._poll, lambda *args, **kwargs: True
        try:
            calls = 200_000
            started = time.perf_counter()
            for _ in range(calls):
                state.poll(timeout_ms=0)
            wrapped = time.perf_counter() - started
            started = time.perf_counter()
            for _ in range(calls):
                state._poll(timeout_ms=0)
            bare = time.perf_counter() - started
        finally:
            state._poll = real
        return (wrapped - bare) / calls * 1e6
    finally:
        consumer.close(autocommit=False)


def measure(broker: Broker) -> list[tuple[str, float, str]]:
    """Rows of (name, value, unit) for benchmarks/runtime_overhead.py."""
    import kafka

    bootstrap = broker.bootstrap
    topic = broker.create_topic(partitions=PARTITIONS)
    _produce(bootstrap, topic)
    rounds: list[dict[str, Rates]] = []
    for order in orders(ROUNDS):  # plain again/plain: the control
        rounds.append({n: (_consume_rate(bootstrap, topic, n == "guarded"),) for n in order})
    guarded = ratios(rounds, "guarded")  # back-to-back runs: slow drifts in load cancel
    plain_us = _dispatch_us(bootstrap, topic, guarded=False)
    guarded_us = _dispatch_us(bootstrap, topic, guarded=True)
    poll_us = _poll_wrapper_us(bootstrap)
    major = kafka.__version__
    return [
        *ratio_rows(rounds),
        ("consume ratio guarded/plain, lowest round", guarded[0], "ratio"),
        ("consume ratio guarded/plain, highest round", guarded[-1], "ratio"),
        (f"kafka-python {major}: poll() overhead of the guard, per call", poll_us, "us"),
        (f"kafka-python {major}: dispatch, plain listener", plain_us, "us"),
        (f"kafka-python {major}: dispatch, guarded listener", guarded_us, "us"),
        (f"kafka-python {major}: dispatch overhead of the guard", guarded_us - plain_us, "us"),
    ]  # fmt: skip


if __name__ == "__main__":
    from runtime_overhead import main  # one driver: starts the broker, prints the rows

    raise SystemExit(main(["--clients", "kafka_python"]))
