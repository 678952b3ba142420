"""The confluent adapters know the rebalance protocol from the configuration (no broker).

KIP-848's consumer protocol (``group.protocol=consumer``) is incremental like
cooperative-sticky, and librdkafka rejects the classic group settings under it when the
consumer is created: the drop-in consumers pass that error through unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import KafkaException
from rebalance_guard import confluent_kafka as sync_guard
from rebalance_guard import confluent_kafka_aio as aio_guard
from rebalance_guard._confluent_common import ProtocolGuess, protocol_of

BASE = {"bootstrap.servers": "127.0.0.1:9", "group.id": "g"}


@pytest.mark.parametrize(
    ("config", "protocol"),
    [
        ({}, "eager"),  # librdkafka's default: range,roundrobin
        ({"partition.assignment.strategy": "roundrobin"}, "eager"),
        ({"partition.assignment.strategy": "cooperative-sticky"}, "cooperative"),
        ({"group.protocol": "classic"}, "eager"),
        ({"group.protocol": "consumer"}, "consumer"),
    ],
)
def test_the_protocol_comes_from_the_configuration(config: dict[str, Any], protocol: str) -> None:
    assert protocol_of(config) == protocol
    consumer = sync_guard.Consumer({**BASE, **config})
    try:
        assert consumer._rebalance._protocol.name == protocol
        assert consumer._rebalance._protocol.cooperative == (protocol != "eager")
    finally:
        consumer.close()


def test_the_drop_in_aio_consumer_keeps_its_protocol() -> None:
    async def scenario() -> str:
        consumer = aio_guard.AIOConsumer({**BASE, "group.protocol": "consumer"})
        try:
            return consumer.rebalance_protocol
        finally:
            await consumer.close()

    assert asyncio.run(scenario()) == "consumer"


def test_an_unknown_protocol_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="'eager', 'cooperative', 'consumer'"):
        ProtocolGuess("cooperative-sticky")
    plain = confluent_kafka.Consumer(BASE)
    try:
        with pytest.raises(ValueError, match="protocol='sticky'"):
            sync_guard.subscribe(
                plain,
                ["t"],
                sync_guard.RebalanceListener(),
                protocol="sticky",  # type: ignore[arg-type]
            )
    finally:
        plain.close()

    async def aio() -> None:
        consumer = aio_guard.AIOConsumer(BASE)
        try:
            with pytest.raises(ValueError, match="protocol='sticky'"):
                aio_guard.set_rebalance_listener(
                    consumer,
                    aio_guard.RebalanceListener(),
                    protocol="sticky",  # type: ignore[arg-type]
                )
        finally:
            await consumer.close()

    asyncio.run(aio())


@pytest.mark.parametrize(
    "setting",
    [
        {"session.timeout.ms": 6000},
        {"heartbeat.interval.ms": 1000},
        {"partition.assignment.strategy": "range"},
    ],
)
def test_classic_group_settings_are_refused_under_the_consumer_protocol(
    setting: dict[str, Any],
) -> None:
    (name,) = setting
    with pytest.raises(KafkaException, match=name):
        sync_guard.Consumer({**BASE, "group.protocol": "consumer", **setting})
