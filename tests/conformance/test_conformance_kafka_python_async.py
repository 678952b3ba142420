"""The conformance suite (test_conformance.py and test_lost.py, unchanged) for kafka-python
3's AsyncRebalanceListener (issue 25 item 2), through driver_kafka_python_async.py.

A module of its own, not a row of conftest.DRIVERS: the chaos run (test_chaos.py) drives its
clients through benchmarks/rebalance_chaos.py, which knows only the four client APIs. The
suite's tests are collected here again with their scenario fixtures bound to this driver.
"""

from __future__ import annotations

import pytest

from tests.conformance import test_conformance, test_lost
from tests.conformance.conftest import load_target
from tests.conformance.driver import PROTOCOLS
from tests.conformance.test_conformance import Handoff, Shrink, run_handoff, run_shrink
from tests.conformance.test_lost import Lost, run_lost
from tests.integration.broker import Broker

TARGETS = [
    pytest.param(("kafka_python_async", protocol), id=f"kafka_python_async-{protocol}")
    for protocol in PROTOCOLS
]
pytestmark = [pytest.mark.kafka_python, pytest.mark.broker]

for _module in (test_conformance, test_lost):
    for _name, _test in vars(_module).items():
        if _name.startswith("test_") and callable(_test):
            globals()[_name] = _test


@pytest.fixture(scope="module", params=TARGETS)
def handoff(request: pytest.FixtureRequest, broker: Broker) -> Handoff:
    driver, protocol = load_target(request.param, broker)
    return run_handoff(broker, driver, protocol)


@pytest.fixture(scope="module", params=TARGETS)
def shrink(request: pytest.FixtureRequest, broker: Broker) -> Shrink:
    driver, protocol = load_target(request.param, broker)
    return run_shrink(broker, driver, protocol)


@pytest.fixture(scope="module", params=TARGETS)
def lost(request: pytest.FixtureRequest, broker: Broker) -> Lost:
    driver, protocol = load_target(request.param, broker)
    return run_lost(broker, driver, protocol)
