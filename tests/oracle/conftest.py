"""The Java oracle of a pytest session: built once, every scenario x protocol run in one JVM
(in the background, while the Python cells run), each trace read when a test first needs it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.broker import Broker
from tests.oracle import java, runner

#: The protocols Java's consumer runs: classic eager (range), classic cooperative
#: (cooperative-sticky) and KIP-848's consumer protocol (the broker assigns).
JAVA_PROTOCOLS = ("eager", "cooperative", "consumer")


class JavaOracle:
    def __init__(self, runs: java.JavaRuns, instances: dict[str, dict[str, Any]]) -> None:
        self.runs, self.instances = runs, instances
        self._traces: dict[str, dict[str, Any]] | None = None

    def trace(self, scenario: str, protocol: str) -> dict[str, Any]:
        key = f"{scenario}-{protocol}"
        if key not in self.instances:
            pytest.skip(f"this broker does not run the {protocol} protocol")
        if self._traces is None:
            self._traces = self.runs.traces()
            for name, trace in self._traces.items():
                trace["final_committed"] = runner.group_committed(self.instances[name])
        return self._traces[key]


@pytest.fixture(scope="session")
def java_oracle(broker: Broker) -> Iterator[JavaOracle]:
    classpath = java.build()
    instances = {
        f"{name}-{protocol}": runner.instance(broker, name, protocol)
        for name in runner.scenario_names()
        for protocol in JAVA_PROTOCOLS
        if protocol in broker.protocols()
    }
    runs = java.JavaRuns(classpath, instances)
    try:
        yield JavaOracle(runs, instances)
    finally:
        runs.stop()
