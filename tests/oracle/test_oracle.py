"""Java's own consumer as the conformance oracle (issue #23).

Every scenario of tests/oracle/scenarios/ runs on Apache Kafka's KafkaConsumer (java/oracle/,
classic eager, classic cooperative, KIP-848 consumer protocol) and on every Python view (the
conformance drivers: kafka-python 3 and 2.x, aiokafka, confluent ``Consumer`` and
``AIOConsumer``, each protocol it runs), on the same Apache Kafka broker. Traces are compared by
invariants and observations (tests/oracle/invariants.py); every difference is a row of
docs/oracle-deviations.md.
"""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from tests.conformance import driver as conformance
from tests.conformance.conftest import DRIVERS
from tests.conformance.driver import Driver
from tests.integration.broker import Broker
from tests.oracle import deviations, invariants, java, runner
from tests.oracle.conftest import JAVA_PROTOCOLS, JavaOracle

SCENARIOS = runner.scenario_names()

JAVA_CELLS = [
    pytest.param(name, protocol, id=f"{name}-{protocol}", marks=pytest.mark.broker)
    for name in SCENARIOS
    for protocol in JAVA_PROTOCOLS
]

PYTHON_CELLS = [
    pytest.param(
        client, protocol, name, id=f"{client}-{protocol}-{name}",
        marks=[pytest.mark.broker, pytest.mark.slow]
        + ([pytest.mark.kafka_python] if client == "kafka_python" else []),
    )
    for client in DRIVERS
    for protocol in JAVA_PROTOCOLS
    for name in SCENARIOS
]  # fmt: skip

PENDING_DRIVERS = (
    "the conformance drivers (tests/conformance/driver*.py) do not run the {protocol} protocol "
    "yet (tests.conformance.driver.PROTOCOLS); only Java runs these cells until they do"
)


def _violations(trace: dict[str, Any], check: str) -> list[str]:
    found = invariants.INVARIANTS.get(check)
    return found(trace)[:3] if found else []


def _driver(client: str, protocol: str) -> Driver:
    driver: Driver = importlib.import_module(f"tests.conformance.driver_{client}").DRIVER
    reason = driver.skip_reason(protocol)
    if reason is not None:
        row = deviations.find(deviations.rows(), "*", deviations.PROTOCOL, client, protocol)
        assert row is not None, (
            f"{client} does not run {protocol} ({reason}) and docs/oracle-deviations.md has no "
            f"'{deviations.PROTOCOL}' row saying so"
        )
        pytest.skip(f"{reason} (docs/oracle-deviations.md)")
    if protocol not in conformance.PROTOCOLS:
        pytest.skip(PENDING_DRIVERS.format(protocol=protocol))
    return driver


def compare(java: dict[str, Any], python: dict[str, Any], table: list[deviations.Row]) -> list[str]:
    """Every difference between the two traces' checks that the table does not name exactly,
    and every row of the table for this cell whose difference is gone."""
    client, protocol, name = python["client"], python["protocol"], python["scenario"]
    theirs, ours = invariants.verdicts(java), invariants.verdicts(python)
    problems = []
    for check, expected in theirs.items():
        j, p = deviations.show(expected), deviations.show(ours[check])
        row = deviations.find(table, name, check, client, protocol)
        if row is None and j != p:
            problems.append(f"{check}: Java {j}, {client} {p}; not in docs/oracle-deviations.md:"
                            f" {_violations(python, check)}")  # fmt: skip
        elif row is not None and j == p:
            problems.append(f"{check}: {client} now does what Java does ({j}); remove its row "
                            "from docs/oracle-deviations.md")  # fmt: skip
        elif row is not None and (row.java, row.python) != (j, p):
            said = f"the table says Java {row.java}, {client} {row.python}"
            problems.append(f"{check}: {said}; this run: Java {j}, {client} {p}: "
                            f"{_violations(python, check)}")  # fmt: skip
    return problems


@pytest.mark.parametrize(("client", "protocol", "name"), PYTHON_CELLS)
def test_oracle_python_view_matches_java(
    broker: Broker, java_oracle: JavaOracle, client: str, protocol: str, name: str
) -> None:
    driver = _driver(client, protocol)
    if protocol not in broker.protocols():
        pytest.skip(f"this broker does not run the {protocol} protocol")
    python = runner.run_python(driver, runner.instance(broker, name, protocol))
    assert not python["errors"], python["errors"]
    oracle = java_oracle.trace(name, protocol)
    assert not oracle["errors"], oracle["errors"]
    problems = compare(oracle, python, deviations.rows())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("name", "protocol"), JAVA_CELLS)
def test_oracle_java_trace_holds_every_invariant(
    java_oracle: JavaOracle, name: str, protocol: str
) -> None:
    """The oracle checks the checks: whatever Java's consumer does satisfies every invariant."""
    trace = java_oracle.trace(name, protocol)
    assert not trace["errors"], trace["errors"]
    assert trace["client_version"] == java.kafka_version(), trace["client_version"]
    broken = {check: found for check, test in invariants.INVARIANTS.items()
              if (found := test(trace))}  # fmt: skip
    assert not broken, broken
