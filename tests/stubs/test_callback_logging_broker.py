"""#27 on the real broker: a 1.5 s rebalance callback logs exactly one warning.

kafka-python 3 is the client where this could go wrong twice over: the adapter runs the
callback on a worker thread that kafka-python's IO loop awaits, and kafka-python times its own
listener calls (its 1 s "Rebalance listener ... took" warning, which would time the adapter's
hop and blame the event loop). One consumer, one real rebalance, one slow callback: one
warning, rebalance_guard's, with the callback's name, duration, partitions and protocol.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import Any

import pytest
from kafka import ConsumerRebalanceListener, KafkaConsumer
from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import KP3, fleet, make_consumer

pytestmark = [pytest.mark.kafka_python]


class SlowOnce(RebalanceListener):
    """The issue's listener: the first assignment takes 1.5 s (a cache warm-up, say)."""

    def __init__(self) -> None:
        self.slow_done = threading.Event()

    def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
        if partitions and not self.slow_done.is_set():
            time.sleep(1.5)
            self.slow_done.set()


@pytest.mark.broker
def test_a_slow_callback_logs_one_warning_on_the_broker(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)  # every logger: kafka-python's own warnings too
    topic = broker.create_topic(partitions=2)
    listener = SlowOnce()
    with fleet() as group:
        consumer = make_consumer(broker.bootstrap, broker.group())
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        group.add(consumer)
        group.until(listener.slow_done.is_set, "the slow on_partitions_assigned")
        group.settle(0.5)  # kafka-python logs its own warning after the callback returns
    ours = [
        r for r in caplog.records if r.name == "rebalance_guard" and r.levelno >= logging.WARNING
    ]
    assert len(ours) == 1, [r.getMessage() for r in ours]
    text = ours[0].getMessage()
    assert text.startswith("slow rebalance callback SlowOnce.on_partitions_assigned(): 1.5")
    assert "s for 2 partitions (kafka-python, eager; warns over 1 s)" in text
    assert ours[0].rebalance_duration >= 1.5  # type: ignore[attr-defined]
    theirs = [r for r in caplog.records if "Rebalance listener" in r.getMessage()]
    assert theirs == []  # kafka-python 3's own warning for the same callback is not logged


class Plain(ConsumerRebalanceListener):  # type: ignore[misc]
    """kafka-python's own listener type, registered unchanged."""

    def on_partitions_assigned(self, assigned: Any) -> None:
        pass

    def on_partitions_revoked(self, revoked: Any) -> None:
        pass


def test_kafka_python_keeps_its_own_warning_for_its_own_listeners() -> None:
    """The adapter quiets kafka-python 3's slow-listener warning only while it is registered."""
    consumer = KafkaConsumer(
        group_id="g", bootstrap_servers="127.0.0.1:9", api_version=(2, 5, 0)
    )  # never connects: nothing here polls
    coordinator = consumer._coordinator
    attribute = "_REBALANCE_LISTENER_WARN_SECS"

    def quieted() -> bool:
        return bool(vars(coordinator).get(attribute) == math.inf)

    try:
        set_rebalance_listener(consumer, SlowOnce())
        assert quieted() is KP3  # kafka-python 2 has no such warning to quiet
        consumer.subscribe(["orders"])  # keeps the registered listener
        assert quieted() is KP3
        set_rebalance_listener(consumer, Plain())
        assert not quieted()
        set_rebalance_listener(consumer, SlowOnce())
        consumer.subscribe(["orders"], listener=Plain())
        assert not quieted()
        set_rebalance_listener(consumer, SlowOnce())
        set_rebalance_listener(consumer, None)
        assert not quieted()
        if KP3:
            assert coordinator._REBALANCE_LISTENER_WARN_SECS == 1.0  # kafka-python's own
    finally:
        consumer.close()
