"""The client x protocol matrix of the conformance suite, and the broker it runs on."""

from __future__ import annotations

import importlib

import pytest

from tests.conformance.driver import PROTOCOLS, Driver
from tests.integration.broker import Broker

#: One driver module per client: tests/conformance/driver_<name>.py exporting DRIVER.
DRIVERS = ("kafka_python", "aiokafka", "confluent_kafka", "confluent_kafka_aio")

TARGETS = [
    pytest.param(
        (client, protocol),
        id=f"{client}-{protocol}",
        marks=[pytest.mark.kafka_python] if client == "kafka_python" else [],
    )
    for client in DRIVERS
    for protocol in PROTOCOLS
]


def load_target(param: tuple[str, str], broker: Broker) -> tuple[Driver, str]:
    """The driver and protocol of one matrix cell, or an explicit skip with the reason."""
    client, protocol = param
    if protocol not in broker.protocols():
        pytest.skip(f"the {broker.kind} test broker does not speak the {protocol} protocol")
    driver: Driver = importlib.import_module(f"tests.conformance.driver_{client}").DRIVER
    reason = driver.skip_reason(protocol)
    if reason is not None:
        pytest.skip(reason)
    return driver, protocol


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/conformance" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.broker)
