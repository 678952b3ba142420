"""One scenario format: every scenario file is valid, and the Java and Python runners know
exactly the steps and callback actions the format (scenarios/schema.json) lists."""

from __future__ import annotations

import json
import subprocess

import jsonschema
import pytest

from tests.oracle import java, runner

SCHEMA = json.loads((runner.SCENARIOS / "schema.json").read_text())


def _format_lists() -> tuple[list[str], list[str]]:
    steps = sorted(SCHEMA["properties"]["steps"]["items"]["properties"])
    actions = sorted(SCHEMA["$defs"]["op"]["enum"])
    return steps, actions


@pytest.mark.parametrize("name", runner.scenario_names())
def test_oracle_scenario_is_valid(name: str) -> None:
    scenario = runner.scenario(name)
    jsonschema.validate(scenario, SCHEMA)
    assert scenario["name"] == name
    members, topics = scenario["members"], scenario["topics"]
    for spec in members.values():
        assert set(spec["topics"]) <= set(topics), spec
    for step in scenario["steps"]:
        ((what, arg),) = step.items()
        named = arg if isinstance(arg, str) else arg.get("member") if what == "subscribe" else None
        assert named is None or named in members, step
        if what in ("produce",):
            assert arg["topic"] in topics, step


def test_oracle_python_runner_knows_the_format() -> None:
    steps, actions = _format_lists()
    assert sorted(runner.STEPS) == steps
    assert sorted(runner.ACTIONS) == actions


@pytest.mark.broker  # builds java/oracle (Maven), as the broker tests do
def test_oracle_java_runner_knows_the_format() -> None:
    classpath = java.build()
    done = subprocess.run(
        ["java", "-cp", classpath, "dev.rebalanceguard.oracle.Oracle", "--format"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    known = json.loads(done.stdout)
    assert (sorted(known["steps"]), sorted(known["actions"])) == _format_lists()


def test_oracle_kafka_clients_version_is_one_setting() -> None:
    """kafka-clients' version is the pom's kafka.version property, the broker's version."""
    pom = java.POM.read_text()
    assert pom.count("<kafka.version>") == 1
    assert "<version>${kafka.version}</version>" in pom
    broker_pom = (java.ORACLE.parent / "kafka-broker" / "pom.xml").read_text()
    assert f"<kafka.version>{java.kafka_version()}</kafka.version>" in broker_pom


def test_oracle_listener_code_is_in_one_place() -> None:
    """Ready for 4.5: only Listener.java names Kafka's listener API or reaches the consumer
    from a callback, so KIP-1306's RebalanceListener/RebalanceConsumer replace it there."""
    sources = {p.name: p.read_text() for p in (java.ORACLE / "src").rglob("*.java")}
    for api in ("ConsumerRebalanceListener", "onPartitionsAssigned", "RebalanceListener"):
        naming = sorted(name for name, text in sources.items() if api in text)
        assert naming == ["Listener.java"], (api, naming)
