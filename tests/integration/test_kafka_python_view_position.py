"""The view's position() answers at once when the position comes from the committed offset.

kafka-python 2.3's own ``position()`` sets a missing position from the committed offset and
then waits in ``KafkaClient.poll`` for any network event, up to ``request_timeout_ms`` (305 s
by default) when nothing is in flight. In a revocation right after an assignment (kafka-python
2 disables the heartbeat while it rejoins) that stalled the conformance suite's KIP-70 case
for minutes, about 1 run in 7. kafka-python 3 answers at once by itself.
"""

from __future__ import annotations

import time

import pytest
from kafka import KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata
from rebalance_guard._view import live
from rebalance_guard.kafka_python import KafkaPythonRebalanceView

from tests.integration.broker import Broker

pytestmark = pytest.mark.kafka_python

#: kafka-python's raw position() would wait this long here: above the session timeout it
#: must exceed, far above what a position from the committed offset needs.
REQUEST_TIMEOUT_MS = 12_000


def _consumer(broker: Broker, group: str) -> KafkaConsumer:
    return KafkaConsumer(
        bootstrap_servers=broker.bootstrap, group_id=group, enable_auto_commit=False,
        request_timeout_ms=REQUEST_TIMEOUT_MS, session_timeout_ms=6_000,
        heartbeat_interval_ms=1_000,
    )  # fmt: skip


def test_position_from_the_committed_offset_does_not_wait_for_the_request_timeout(
    broker: Broker,
) -> None:
    topic, group = broker.create_topic(partitions=1), broker.group()
    tp = TopicPartition(topic, 0)
    writer = _consumer(broker, group)
    try:
        writer.assign([tp])
        writer.commit({tp: OffsetAndMetadata(5, "", -1)})
    finally:
        writer.close()
    consumer = _consumer(broker, group)
    try:
        consumer.assign([tp])  # no position yet; nothing in flight
        with live(KafkaPythonRebalanceView(consumer, "Test.on_partitions_revoked()")) as view:
            started = time.monotonic()
            assert view.position(tp) == 5
            took = time.monotonic() - started
            assert view.position(tp, timeout_ms=1_000) == 5
    finally:
        consumer.close()
    assert took < 3.0, f"position() took {took:.1f}s (request timeout {REQUEST_TIMEOUT_MS} ms)"
