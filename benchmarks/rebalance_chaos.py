"""Chaos run: consumers in separate processes join, leave and are SIGKILLed while numbered
messages are produced; every listener commits on revoke with a BARE commit() on the view.

Per client x protocol it prints: messages, lost, duplicated, the duplicates the bound
excuses and those it does not, commits that failed, membership changes, SIGKILLs, coordinator
failovers, assigned callbacks, and the longest time a partition had no owner.

Modes (``--mode``):

- ``graceful``: members join and leave with close()/stop() only. Goal: 0 lost, 0 duplicated.
- ``sigkill`` (default): members also die by SIGKILL at seeded random times.
- ``failover``: a three-broker cluster (separate KRaft combined-mode processes, offsets topic
  replicated 3 times, min ISR 2); at each membership change the broker hosting the group's
  coordinator (admin ``describe_consumer_groups``) is SIGKILLed, at random 0-1.5 s before
  the change (a leaver's revocation commits while the coordinator fails over) or 0-1.5 s
  after it (during the rebalance), and restarted 2-5 s later; the next change waits until
  every replica is back in sync. Members leave gracefully (``--kill`` adds SIGKILLs).

Goal everywhere: 0 lost. The bound on duplicates, checked per duplicated message: a repeat
is excused only when its earlier processor never committed past it before the repeat (no
successful commit of an offset beyond it by that member in between) AND that member was
SIGKILLed, lost the partition, saw a commit fail, or the coordinator failed over in between.
Any other repeat is "unexcused" (must be 0); in graceful mode every repeat counts.

    python benchmarks/rebalance_chaos.py
        [--clients kafka_python,kafka_python_async,aiokafka,confluent_kafka,confluent_kafka_aio]
        [--protocols eager,cooperative,consumer] [--seconds 40] [--seed 1]
        [--mode graceful|sigkill|failover] [--kill]

Runs on Apache Kafka (tests/integration/broker.py; one node, or three for ``failover``), or on
KAFKA_BOOTSTRAP_SERVERS (not with ``failover``). kafka-python 2.x: run with the interpreter of
an environment holding it (CI's .venv-kp2; eager only). The consumer protocol (KIP-848) is
confluent-only. Journals and member stderr are kept in the printed directory.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from tests.integration.broker import (  # noqa: E402
    GROUP_TIMEOUTS,
    Broker,
    KafkaCluster,
    KafkaNode,
    confluent_group_config,
    start_broker,
)

CLIENTS = (
    "kafka_python", "kafka_python_async", "aiokafka", "confluent_kafka", "confluent_kafka_aio"
)
PROTOCOLS = ("eager", "cooperative", "consumer")
MODES = ("graceful", "sigkill", "failover")
PARTITIONS = 4


# -- the worker: one consumer process ------------------------------------------------------


class Journal:
    """Unbuffered lines, so a SIGKILL loses nothing already written."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def write(self, *fields: object) -> None:
        os.write(self._fd, (" ".join(map(str, (time.time(), *fields))) + "\n").encode())


def _parts(partitions: Any) -> str:
    return ",".join(str(tp[1] if isinstance(tp, tuple) else tp.partition) for tp in partitions)


def _failed(journal: Journal, partitions: Any, exc: BaseException) -> None:
    """A commit in the revocation failed: what it would have committed may repeat."""
    journal.write("COMMITFAIL", _parts(partitions) or "-", type(exc).__name__)


def worker_kafka_python(args: argparse.Namespace, journal: Journal, stop: threading.Event) -> None:
    from rebalance_guard.kafka_python import RebalanceListener

    class Listener(RebalanceListener):
        def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            try:
                consumer.commit()  # bare: the consumed positions
            except Exception as exc:
                _failed(journal, partitions, exc)
                return
            for tp in partitions:
                journal.write("COMMIT", tp.partition, consumer.committed(tp))

        def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    _consume_kafka_python(args, journal, stop, Listener())


def worker_kafka_python_async(
    args: argparse.Namespace, journal: Journal, stop: threading.Event
) -> None:
    """kafka-python 3's async listener: callbacks awaited on its IO loop, the view awaited."""
    from rebalance_guard.kafka_python import AsyncRebalanceListener

    class Listener(AsyncRebalanceListener):
        async def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        async def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            try:
                await consumer.commit()  # bare: the consumed positions
            except Exception as exc:
                _failed(journal, partitions, exc)
                return
            for tp in partitions:
                journal.write("COMMIT", tp.partition, await consumer.committed(tp))

        async def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    _consume_kafka_python(args, journal, stop, Listener())


def _consume_kafka_python(
    args: argparse.Namespace, journal: Journal, stop: threading.Event, listener: Any
) -> None:
    from kafka import KafkaConsumer
    from rebalance_guard.kafka_python import set_rebalance_listener

    from tests.integration.kafka_python_support import assignors

    consumer = KafkaConsumer(
        bootstrap_servers=args.bootstrap, group_id=args.group, enable_auto_commit=False,
        auto_offset_reset="earliest", partition_assignment_strategy=assignors(args.protocol),
        **GROUP_TIMEOUTS,
    )  # fmt: skip
    set_rebalance_listener(consumer, listener)
    consumer.subscribe([args.topic])
    while not stop.is_set():
        for tp, batch in consumer.poll(timeout_ms=100).items():
            for record in batch:
                journal.write("PROC", int(record.value), tp.partition, record.offset)
    consumer.close(autocommit=False)  # revokes first (rebalance_guard on 2.x): its bare commit


def _confluent_config(args: argparse.Namespace) -> dict[str, Any]:
    config: dict[str, Any] = {
        "bootstrap.servers": args.bootstrap, "group.id": args.group,
        "enable.auto.commit": False, "auto.offset.reset": "earliest",
        **confluent_group_config(args.protocol),
    }  # fmt: skip
    if os.environ.get("CHAOS_RDKAFKA_DEBUG"):  # e.g. cgrp,protocol: into member-N.log.stderr
        config.update(debug=os.environ["CHAOS_RDKAFKA_DEBUG"], log_level=7)
    return config


def _journal_commits(journal: Journal, committed: Any) -> None:
    for tp in committed or []:
        if tp.offset >= 0:  # every partition the bare commit covered, revoked or kept
            journal.write("COMMIT", tp.partition, tp.offset)


def worker_confluent_kafka(
    args: argparse.Namespace, journal: Journal, stop: threading.Event
) -> None:
    from rebalance_guard.confluent_kafka import Consumer, RebalanceListener
    from rebalance_guard.confluent_kafka import set_rebalance_listener as register

    class Listener(RebalanceListener):
        def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            try:
                committed = consumer.commit()  # bare and synchronous on the view
            except Exception as exc:
                _failed(journal, partitions, exc)
                return
            _journal_commits(journal, committed)

        def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    consumer = Consumer(_confluent_config(args))  # the drop-in: knows its protocol
    register(consumer, Listener())
    consumer.subscribe([args.topic])
    while not stop.is_set():
        message = consumer.poll(0.1)
        if message is None or message.error() is not None:
            continue
        value = message.value() or b"-1"
        journal.write("PROC", int(value), message.partition(), message.offset())
    consumer.close()  # revokes first: its bare commit


def worker_confluent_raw(args: argparse.Namespace, journal: Journal, stop: threading.Event) -> None:
    """Control: plain confluent callbacks, no rebalance_guard (``--clients confluent_raw``)."""
    from confluent_kafka import Consumer, KafkaException

    def on_assign(consumer: Any, partitions: Any) -> None:
        journal.write("EVT", "assigned", _parts(partitions) or "-")

    def on_revoke(consumer: Any, partitions: Any) -> None:
        journal.write("EVT", "revoked", _parts(partitions) or "-")
        try:
            _journal_commits(journal, consumer.commit(asynchronous=False))
        except KafkaException as exc:  # also: nothing consumed since the last commit
            _failed(journal, partitions, exc)

    def on_lost(consumer: Any, partitions: Any) -> None:
        journal.write("EVT", "lost", _parts(partitions) or "-")

    consumer = Consumer(_confluent_config(args))
    consumer.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_lost)
    while not stop.is_set():
        message = consumer.poll(0.1)
        if message is None or message.error() is not None:
            continue
        value = message.value() or b"-1"
        journal.write("PROC", int(value), message.partition(), message.offset())
    consumer.close()


def worker_confluent_kafka_aio(
    args: argparse.Namespace, journal: Journal, stop: threading.Event
) -> None:
    import asyncio

    from rebalance_guard.confluent_kafka_aio import AIOConsumer, RebalanceListener, subscribe

    class Listener(RebalanceListener):
        async def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        async def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            try:
                committed = await consumer.commit()  # bare and synchronous on the view
            except Exception as exc:
                _failed(journal, partitions, exc)
                return
            _journal_commits(journal, committed)

        async def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    async def run() -> None:
        consumer = AIOConsumer(_confluent_config(args))  # the drop-in: knows its protocol
        await subscribe(consumer, [args.topic], Listener())
        try:
            while not stop.is_set():
                message = await consumer.poll(0.1)
                if message is None or message.error() is not None:
                    continue
                value = message.value() or b"-1"
                journal.write("PROC", int(value), message.partition(), message.offset())
        finally:
            await consumer.close()  # runs the revocation: its bare commit

    asyncio.run(run())


def worker_aiokafka(args: argparse.Namespace, journal: Journal, stop: threading.Event) -> None:
    import asyncio

    from aiokafka import AIOKafkaConsumer
    from rebalance_guard.aiokafka import RebalanceListener, set_rebalance_listener

    class Listener(RebalanceListener):
        async def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        async def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            try:
                await consumer.commit()  # bare
            except Exception as exc:
                _failed(journal, partitions, exc)
                return
            for tp in partitions:
                journal.write("COMMIT", tp.partition, await consumer.committed(tp))

        async def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    async def run() -> None:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=args.bootstrap, group_id=args.group, enable_auto_commit=False,
            auto_offset_reset="earliest", **GROUP_TIMEOUTS,
        )  # fmt: skip
        set_rebalance_listener(consumer, Listener())
        consumer.subscribe([args.topic])
        await consumer.start()
        try:
            while not stop.is_set():
                batches = await consumer.getmany(timeout_ms=100)
                for tp, batch in batches.items():
                    for record in batch:
                        journal.write("PROC", int(record.value), tp.partition, record.offset)
        finally:
            await consumer.stop()  # runs the revocation: its bare commit (rebalance_guard)

    asyncio.run(run())


def worker(args: argparse.Namespace) -> int:
    journal = Journal(args.journal)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())  # graceful leave
    parent = os.getppid()

    def orphaned() -> None:  # the conductor died: leave too
        while not stop.wait(1.0):
            if os.getppid() != parent:
                stop.set()

    threading.Thread(target=orphaned, daemon=True).start()
    journal.write("START")
    globals()[f"worker_{args.client}"](args, journal, stop)
    journal.write("CLOSED")
    return 0


# -- the conductor ---------------------------------------------------------------------------


class Producer(threading.Thread):
    """Numbered messages, number n to partition n % PARTITIONS; idempotent, so a broker
    failover cannot write one twice. ``delivered``: the numbers the broker acknowledged."""

    def __init__(self, bootstrap: str, topic: str, rate: float) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.topic, self.pause = bootstrap, topic, 1.0 / rate
        self.sent = 0
        self.delivered: set[int] = set()
        self.failed: list[str] = []
        self.halt = threading.Event()

    def _report(self, error: Any, message: Any) -> None:
        if error is None:
            self.delivered.add(int(message.value()))
        else:
            self.failed.append(str(error))

    def run(self) -> None:
        from confluent_kafka import Producer as Raw

        producer = Raw({"bootstrap.servers": self.bootstrap, "linger.ms": 5,
                        "enable.idempotence": True})  # fmt: skip
        while not self.halt.is_set():
            producer.produce(self.topic, str(self.sent).encode(), partition=self.sent % PARTITIONS,
                             on_delivery=self._report)  # fmt: skip
            self.sent += 1
            producer.poll(0)
            time.sleep(self.pause)
        assert producer.flush(120) == 0


@dataclass
class Result:
    client: str
    protocol: str
    mode: str
    messages: int
    lost: int
    duplicated: int
    excused: int
    unexcused: int
    commit_failures: int
    changes: int
    kills: int
    failovers: int
    assigned_callbacks: int
    longest_unowned_s: float
    workdir: str = ""
    notes: str = ""


def _spawn(bootstrap: str, client: str, protocol: str, group: str, topic: str, path: str) -> Any:
    command = [
        sys.executable, __file__, "--worker", "--client", client, "--protocol", protocol,
        "--bootstrap", bootstrap, "--group", group, "--topic", topic, "--journal", path,
    ]  # fmt: skip
    with open(path + ".stderr", "wb") as errors:  # kept next to the journal for diagnosis
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)


class Coordinator:
    """The group's coordinator on a cluster: find it, SIGKILL it, restart it."""

    def __init__(self, cluster: KafkaCluster, group: str, journal: Journal) -> None:
        from confluent_kafka.admin import AdminClient

        self.cluster, self.group, self.journal = cluster, group, journal
        self.admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        self.failovers = 0
        self.notes: list[str] = []

    def find(self, timeout: float = 30) -> KafkaNode | None:
        """The node hosting the group's coordinator now. A fresh admin client each time:
        librdkafka's admin client keeps the coordinator it found, and after a failover its
        describe_consumer_groups answers NOT_COORDINATOR again and again (measured)."""
        from confluent_kafka.admin import AdminClient

        deadline = time.monotonic() + timeout
        while True:
            admin = AdminClient({"bootstrap.servers": self.cluster.bootstrap})
            try:
                future = admin.describe_consumer_groups([self.group], request_timeout=10)
                described = future[self.group].result(timeout=15)
                return next(n for n in self.cluster.nodes if n.node_id == described.coordinator.id)
            except Exception as exc:
                if time.monotonic() > deadline:
                    self.notes.append(f"coordinator not found: {exc}")
                    return None
            time.sleep(0.5)

    def in_sync(self, timeout: float = 90) -> bool:
        """Until every partition (offsets topic included) has all three replicas in sync:
        one failure at a time, never a second one before the first is repaired."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                topics = self.admin.list_topics(timeout=5).topics
                isr = [len(p.isrs) for t in topics.values() for p in t.partitions.values()]
                if isr and min(isr) == len(self.cluster.nodes):
                    return True
            except Exception:
                pass
            time.sleep(0.5)
        self.notes.append(f"replicas not back in sync within {timeout:.0f}s")
        return False

    def kill(self) -> KafkaNode | None:
        """SIGKILL the broker hosting the group's coordinator now."""
        node = self.find()
        if node is not None:
            node.kill()
            self.failovers += 1
            self.journal.write("FAILOVER", node.node_id)
        return node

    def restart(self, node: KafkaNode | None, rng: random.Random) -> None:
        """Restart it 2-5 s after the kill, then wait for every replica to be in sync."""
        if node is not None:
            time.sleep(rng.uniform(2.0, 5.0))
            self.cluster.restart(node)
            self.journal.write("RESTARTED", node.node_id)
        self.in_sync()


def run_one(
    broker: Broker, client: str, protocol: str, seconds: float, seed: int, mode: str,
    kill: bool | None = None,
) -> Result:  # fmt: skip
    """One cell. ``kill``: members may be SIGKILLed (default: in sigkill mode only)."""
    assert mode in MODES, mode
    kill = (mode == "sigkill") if kill is None else kill
    # the async listener shares kafka-python's schedule: the same client, its cells comparable
    schedule = client.removesuffix("_async")
    rng = random.Random(f"{seed}-{schedule}-{protocol}")
    topic = broker.create_topic(partitions=PARTITIONS)
    group = broker.group()
    workdir = tempfile.mkdtemp(prefix=f"chaos-{client}-{protocol}-{mode}-")
    conductor = Journal(os.path.join(workdir, "conductor.log"))
    coordinator = None
    if mode == "failover":
        assert broker.cluster is not None and len(broker.cluster.nodes) >= 3, "failover: 3 nodes"
        coordinator = Coordinator(broker.cluster, group, conductor)
    journals: dict[int, str] = {}
    alive: dict[int, Any] = {}
    killed: dict[int, float] = {}
    leaving: list[Any] = []
    changes = 0

    def join() -> None:
        index = len(journals)
        journals[index] = os.path.join(workdir, f"member-{index}.log")
        alive[index] = _spawn(broker.bootstrap, client, protocol, group, topic, journals[index])

    producer = Producer(broker.bootstrap, topic, rate=100)
    producer.start()
    join()
    join()
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            time.sleep(rng.uniform(4.0, 8.0))
            actions = ["join"] if len(alive) < 4 else []
            if len(alive) > 1:
                actions += ["leave"] + (["kill"] if kill else [])
            action = rng.choice(actions)
            # failover: the coordinator dies 0-1.5 s before the change (the leaver's
            # revocation commits against a failing coordinator) or 0-1.5 s after it (the
            # rebalance itself fails over), then comes back
            first = rng.choice(["kill", "change"]) if coordinator is not None else "change"
            victim = coordinator.kill() if coordinator is not None and first == "kill" else None
            if coordinator is not None:
                time.sleep(rng.uniform(0.0, 1.5))
            changes += 1
            conductor.write("CHANGE", action)
            if action == "join":
                join()
            else:
                index = rng.choice(sorted(alive))
                process = alive.pop(index)
                if action == "kill":
                    process.send_signal(signal.SIGKILL)
                    killed[index] = time.time()
                else:
                    process.send_signal(signal.SIGTERM)
                if coordinator is None or first == "change":
                    process.wait(timeout=120)
                else:  # its close() runs while the coordinator fails over
                    leaving.append(process)
            if coordinator is not None:
                if first == "change":
                    time.sleep(rng.uniform(0.0, 1.5))
                    victim = coordinator.kill()
                coordinator.restart(victim, rng)
                for process in leaving:
                    process.wait(timeout=120)
                leaving.clear()
        producer.halt.set()
        producer.join(timeout=180)
        delivered = producer.delivered
        wait_until = time.monotonic() + 120
        while time.monotonic() < wait_until:
            if delivered <= _processed(journals)[1]:
                break
            time.sleep(0.5)
        time.sleep(2.0)  # anything delivered twice arrives now
    finally:
        producer.halt.set()
        for process in alive.values():
            process.send_signal(signal.SIGTERM)
        for process in alive.values():
            try:
                process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
    notes = list(coordinator.notes) if coordinator else []
    if producer.failed:
        notes.append(f"{len(producer.failed)} not delivered: {producer.failed[0]}")
    failovers = [float(f[0]) for f in _lines(conductor.path) if f[1] == "FAILOVER"]
    result = _analyse(client, protocol, mode, delivered, journals, killed, failovers, changes)
    result.workdir, result.notes = workdir, "; ".join(notes)
    return result


def _lines(path: str) -> list[list[str]]:
    try:
        return [line.split() for line in Path(path).read_text().splitlines() if line]
    except FileNotFoundError:
        return []


def _processed(journals: dict[int, str]) -> tuple[list[tuple[int, int, int, int, float]], set[int]]:
    """(member, value, partition, offset, when) for every processed message, and the values."""
    rows = [
        (member, int(f[2]), int(f[3]), int(f[4]), float(f[0]))
        for member, path in journals.items()
        for f in _lines(path)
        if f[1] == "PROC"
    ]
    return rows, {row[1] for row in rows}


def _excused(
    member: int, partition: int, offset: int, since: float, until: float,
    lines: list[list[str]], killed: dict[int, float], failovers: list[float],
) -> bool:  # fmt: skip
    """May ``member``'s processing of (partition, offset) at ``since`` repeat at ``until``?

    Not when the member committed past it in between (a successful commit covered it). Yes
    when it was not covered and the member was SIGKILLed, lost the partition or saw a commit
    fail in between, or the coordinator failed over in between."""
    reason = since <= killed.get(member, -1.0) < until or any(
        since <= at < until for at in failovers
    )
    for f in lines:
        at = float(f[0])
        if not since <= at < until:
            continue
        covered = f[1] == "COMMIT" and f[2] == str(partition) and f[3] not in ("None", "-1")
        if covered and int(f[3]) > offset:
            return False  # committed past it: the repeat breaks the bound
        failed = f[1] == "COMMITFAIL" and str(partition) in f[2].split(",")
        lost = f[1] == "EVT" and f[2] == "lost" and str(partition) in f[3].split(",")
        reason = reason or failed or lost
    return reason


def _analyse(
    client: str, protocol: str, mode: str, delivered: set[int], journals: dict[int, str],
    killed: dict[int, float], failovers: list[float], changes: int,
) -> Result:  # fmt: skip
    rows, values = _processed(journals)
    lines = {member: _lines(path) for member, path in journals.items()}
    by_value: dict[int, list[tuple[float, int, int, int]]] = {}
    for member, value, partition, offset, at in rows:
        by_value.setdefault(value, []).append((at, member, partition, offset))
    duplicated = excused = 0
    for times in by_value.values():
        if len(times) < 2:
            continue
        duplicated += 1
        times.sort()
        excused += all(
            _excused(m, p, o, at, times[i + 1][0], lines[m], killed, failovers)
            for i, (at, m, p, o) in enumerate(times[:-1])
        )
    return Result(
        client=client, protocol=protocol, mode=mode, messages=len(delivered),
        lost=len(delivered - values), duplicated=duplicated, excused=excused,
        unexcused=duplicated - excused,
        commit_failures=sum(f[1] == "COMMITFAIL" for ls in lines.values() for f in ls),
        changes=changes, kills=len(killed), failovers=len(failovers),
        assigned_callbacks=sum(
            f[1] == "EVT" and f[2] == "assigned" for ls in lines.values() for f in ls
        ),
        longest_unowned_s=_longest_unowned(journals, killed),
    )  # fmt: skip


def _longest_unowned(journals: dict[int, str], killed: dict[int, float]) -> float:
    """Longest time any partition had no owner, from the first assignment to the end."""
    events: list[tuple[float, int, str, list[int]]] = []
    for member, path in journals.items():
        for f in _lines(path):
            if f[1] == "EVT" and f[3] != "-":
                events.append((float(f[0]), member, f[2], [int(p) for p in f[3].split(",")]))
            elif f[1] == "CLOSED":
                events.append((float(f[0]), member, "closed", []))
    for member, at in killed.items():
        events.append((at, member, "killed", []))
    events.sort()
    owners: dict[int, set[int]] = {p: set() for p in range(PARTITIONS)}
    since: dict[int, float | None] = {p: None for p in range(PARTITIONS)}
    started = False
    longest = 0.0
    for at, member, kind, partitions in events:
        if kind == "assigned":
            started = True
            for p in partitions:
                if since[p] is not None:
                    longest = max(longest, at - since[p])  # type: ignore[operator]
                    since[p] = None
                owners[p].add(member)
        else:
            gone = partitions if kind in ("revoked", "lost") else list(range(PARTITIONS))
            for p in gone:
                owners[p].discard(member)
                if started and not owners[p] and since[p] is None:
                    since[p] = at
    end = events[-1][0] if events else 0.0
    for p in range(PARTITIONS):  # still without an owner at the end
        if since[p] is not None:
            longest = max(longest, end - since[p])  # type: ignore[operator]
    return round(longest, 1)


def skip_reason(client: str, protocol: str, broker: Broker | None = None) -> str | None:
    if broker is not None and protocol not in broker.protocols():
        return f"the {broker.kind} broker does not speak the {protocol} protocol"
    if client == "kafka_python_async":
        import kafka

        if not kafka.__version__.startswith("3"):
            return "AsyncRebalanceListener needs kafka-python 3 (its IO loop awaits it)"
        client = "kafka_python"
    if protocol == "consumer" and client in ("kafka_python", "aiokafka"):
        from tests.conformance.driver import NO_CONSUMER_PROTOCOL

        return NO_CONSUMER_PROTOCOL.format(client=client.replace("_", "-"))
    if protocol == "cooperative" and client == "aiokafka":
        return "aiokafka 0.14 has no cooperative protocol (aiokafka #1126)"
    if protocol == "cooperative" and client == "kafka_python":
        import kafka

        if not kafka.__version__.startswith("3"):
            return "kafka-python 2.x has no cooperative protocol"
    return None


HEADER = ("client", "protocol", "mode", "messages", "lost", "dup", "excused", "unexcused",
          "commit_fail", "changes", "kills", "failovers", "assigned", "max_unowned_s")  # fmt: skip


def row(r: Result) -> str:
    values = (r.client, r.protocol, r.mode, r.messages, r.lost, r.duplicated, r.excused,
              r.unexcused, r.commit_failures, r.changes, r.kills, r.failovers,
              r.assigned_callbacks, r.longest_unowned_s)  # fmt: skip
    return " ".join(f"{v:>11}" for v in values)


def passed(r: Result) -> bool:
    return r.lost == 0 and (r.duplicated == 0 if r.mode == "graceful" else r.unexcused == 0)


def run_matrix(
    clients: list[str], protocols: list[str], seconds: float, seed: int, mode: str,
    kill: bool | None,
) -> list[Result]:  # fmt: skip
    if mode == "failover":
        cluster = KafkaCluster.start(3)
        broker = Broker(cluster.bootstrap, "kafka", f"3 nodes ({cluster.directory})",
                        cluster=cluster)  # fmt: skip
        brokers = iter(())
    else:
        cluster = None
        brokers = start_broker()
        broker = next(brokers)
    results = []
    try:
        print(f"broker: {broker.description}; load {os.getloadavg()}", flush=True)
        print(" ".join(f"{h:>11}" for h in HEADER), flush=True)
        for client in clients:
            for protocol in protocols:
                reason = skip_reason(client, protocol, broker)
                if reason:
                    print(f"{client:>11} {protocol:>11} {mode:>11}  skipped: {reason}", flush=True)
                    continue
                started = time.monotonic()
                r = run_one(broker, client, protocol, seconds, seed, mode, kill)
                results.append(r)
                print(row(r), flush=True)
                print(f"{'':>11} {'PASS' if passed(r) else 'FAIL'} in "
                      f"{time.monotonic() - started:.0f}s, load {os.getloadavg()[0]:.1f}, "
                      f"journals {r.workdir} {r.notes}", flush=True)  # fmt: skip
    finally:
        next(brokers, None)  # stops the broker
        if cluster is not None:
            cluster.stop()
            cluster.remove()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=MODES, default="sigkill")
    parser.add_argument("--kill", action="store_true", default=None,
                        help="SIGKILL members too (failover mode)")  # fmt: skip
    parser.add_argument("--worker", action="store_true")
    for name in ("client", "protocol", "bootstrap", "group", "topic", "journal"):
        parser.add_argument(f"--{name}")
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks
    results = run_matrix(args.clients.split(","), args.protocols.split(","), args.seconds,
                         args.seed, args.mode, args.kill)  # fmt: skip
    return 0 if all(passed(r) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
