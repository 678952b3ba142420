"""Build and run the Java oracle (java/oracle/): Apache Kafka's KafkaConsumer on a scenario.

:func:`build` runs ``mvn -q package`` once per pom and source content (Maven resolves
kafka-clients and Jackson from Maven Central into ``~/.m2`` the first time); :class:`JavaRuns`
hands one JVM several instances at once (each its own group and topics; the JVM runs them in
parallel) and reads their traces. Missing Java 17 or Maven is a clear error, never a skip.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tests.integration.broker import java_problem

ORACLE = Path(__file__).resolve().parents[2] / "java" / "oracle"
POM = ORACLE / "pom.xml"
TARGET = ORACLE / "target"


class OracleUnavailable(RuntimeError):
    """The Java oracle cannot be built or run here (the message says why)."""


def kafka_version() -> str:
    """The ``kafka.version`` property of the oracle's pom (the one setting to change)."""
    text = POM.read_text()
    return text.split("<kafka.version>", 1)[1].split("</kafka.version>", 1)[0].strip()


def _digest() -> str:
    sha = hashlib.sha256(POM.read_bytes())
    for source in sorted((ORACLE / "src").rglob("*.java")):
        sha.update(source.read_bytes())
    return sha.hexdigest()[:16]


def classpath() -> str:
    return os.pathsep.join([str(TARGET / "classes"), str(TARGET / "lib" / "*")])


def build() -> str:
    """``mvn -q package`` unless this pom and these sources were built already; the classpath."""
    problem = java_problem()
    if problem is None and shutil.which("mvn") is None:
        problem = "no mvn on PATH to build java/oracle"
    if problem is not None:
        raise OracleUnavailable(f"the Java oracle needs Java 17 and Maven: {problem}")
    stamp = TARGET / f"built-{_digest()}"
    if stamp.exists() and (TARGET / "lib").is_dir():
        return classpath()
    done = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(POM), "package"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip().splitlines()[-25:]
        raise OracleUnavailable("mvn -q package failed in java/oracle:\n" + "\n".join(tail))
    for old in TARGET.glob("built-*"):
        old.unlink()
    stamp.touch()
    return classpath()


class JavaRuns:
    """One JVM running several instances; :meth:`traces` waits for it and reads them."""

    def __init__(self, cp: str, instances: dict[str, dict[str, Any]]) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="rebalance-guard-oracle-"))
        args: list[str] = []
        for key, spec in instances.items():
            (self.directory / f"{key}.instance.json").write_text(json.dumps(spec))
            args += [str(self.directory / f"{key}.instance.json"),
                     str(self.directory / f"{key}.trace.json")]  # fmt: skip
        self.keys = list(instances)
        self.log = self.directory / "java.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                ["java", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                 "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                 "-cp", cp, "dev.rebalanceguard.oracle.Oracle", *args],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip

    def traces(self, timeout: float = 600) -> dict[str, dict[str, Any]]:
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as late:
            self.proc.kill()
            self.proc.wait()
            tail = self._tail()
            raise OracleUnavailable(f"the Java oracle ran past {timeout:.0f}s: {tail}") from late
        if code != 0:
            raise OracleUnavailable(f"the Java oracle exited with {code}: {self._tail()}")
        return {
            key: json.loads((self.directory / f"{key}.trace.json").read_text()) for key in self.keys
        }

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])
