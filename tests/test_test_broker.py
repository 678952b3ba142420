"""Which broker a test run gets (tests/integration/broker.py), without starting one.

Apache Kafka is the reference; tansu only where Java 17 or Maven cannot provide it, never in
CI, and the pytest header says which and why.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.integration import broker


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("KAFKA_BOOTSTRAP_SERVERS", "REBALANCE_GUARD_TEST_BROKER", "CI"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _no_java(monkeypatch: pytest.MonkeyPatch) -> None:
    real = shutil.which
    monkeypatch.setattr(broker.shutil, "which", lambda name: None if name == "java" else real(name))


def test_ci_requires_apache_kafka(clean_env: pytest.MonkeyPatch) -> None:
    assert broker.wanted() == "any"
    clean_env.setenv("CI", "true")
    assert broker.wanted() == "kafka"
    clean_env.setenv("REBALANCE_GUARD_TEST_BROKER", "tansu")
    assert broker.wanted() == "tansu"


def test_the_header_names_the_broker_and_why(clean_env: pytest.MonkeyPatch) -> None:
    assert "Apache Kafka from Maven Central" in broker.plan()
    _no_java(clean_env)
    fallback = broker.plan()
    assert "tansu" in fallback and "no java on PATH" in fallback and "install Java 17" in fallback
    clean_env.setenv("CI", "true")
    assert "REQUIRED but unavailable: no java on PATH" in broker.plan()
    clean_env.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9")
    assert broker.plan() == "test broker: external (127.0.0.1:9)"


def test_a_required_broker_that_cannot_start_fails_with_the_reason(
    clean_env: pytest.MonkeyPatch,
) -> None:
    _no_java(clean_env)
    clean_env.setenv("REBALANCE_GUARD_TEST_BROKER", "kafka")
    with pytest.raises(broker.BrokerUnavailable, match="no java on PATH"):
        next(broker.start_broker())


def test_an_old_java_is_named(clean_env: pytest.MonkeyPatch) -> None:
    def old_java(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(args, 0, "", 'openjdk version "11.0.2" 2019-01-15\n')

    clean_env.setattr(broker.subprocess, "run", old_java)
    assert broker.java_problem() == "java 11.0.2 found; Apache Kafka 4.x needs Java 17 or newer"


def test_the_classpath_is_resolved_once_per_pom(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    pom = tmp_path / "pom.xml"
    pom.write_text("<project/>")
    clean_env.setattr(broker, "POM", pom)
    first = broker._cached_classpath_file()
    pom.write_text("<project><!-- another version --></project>")
    assert broker._cached_classpath_file() != first  # a changed pom resolves again


def test_the_cluster_id_is_what_storage_tool_expects() -> None:
    ident = broker.cluster_id()
    assert len(ident) == 22 and "=" not in ident  # 16 bytes, URL-safe base64, no padding
