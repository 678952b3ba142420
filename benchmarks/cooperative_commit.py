"""Does the coordinator accept a commit made during a cooperative (KIP-429) revocation?

Part 1, raw protocol (no client library): member A forms a classic group alone
(cooperative-sticky, generation 1, Stable). Member B's JoinGroup moves the group to
PreparingRebalance: A has not rejoined yet, exactly where a KIP-429 member revokes (it keeps
its partitions, revokes the ones it must give up, commits them, then rejoins). A then sends
OffsetCommit requests and the script prints, for each, the group state (DescribeGroups) and
the coordinator's answer:

- A's current generation (1) while PreparingRebalance: accepted by Apache Kafka (NONE; the
  committed offset reads back through OffsetFetch);
- a stale generation (0): ILLEGAL_GENERATION;
- after both rejoined (generation 2, CompletingRebalance: JoinGroup done, SyncGroup not yet):
  REBALANCE_IN_PROGRESS with the new generation, ILLEGAL_GENERATION with the old one;
- after SyncGroup (Stable, generation 2): accepted.

Part 2, real clients: two confluent-kafka members (cooperative-sticky) through the drop-in
rebalance_guard Consumer; a third joins and a member that gives a partition up makes a bare
``commit()`` on the view in ``on_partitions_revoked``. The callback records the group state
seen by the admin API at that moment and the commit's result.

    python benchmarks/cooperative_commit.py

On the test broker (Apache Kafka, tests/integration/broker.py) or KAFKA_BOOTSTRAP_SERVERS.
Exit status 0 when every answer is the one above.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from tests.integration.broker import Broker, confluent_group_config, start_broker  # noqa: E402

ERRORS = {0: "NONE", 14: "COORDINATOR_LOAD_IN_PROGRESS", 15: "COORDINATOR_NOT_AVAILABLE",
          16: "NOT_COORDINATOR", 22: "ILLEGAL_GENERATION", 25: "UNKNOWN_MEMBER_ID",
          27: "REBALANCE_IN_PROGRESS", 79: "MEMBER_ID_REQUIRED"}  # fmt: skip


def s(text: str | None) -> bytes:
    if text is None:
        return struct.pack(">h", -1)
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


def b(raw: bytes) -> bytes:
    return struct.pack(">i", len(raw)) + raw


class Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> int:
        (value,) = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return int(value)

    def string(self) -> str | None:
        n = self.take(">h")
        if n < 0:
            return None
        value = self.data[self.at : self.at + n].decode()
        self.at += n
        return value

    def bytes_(self) -> bytes:
        n = self.take(">i")
        value = self.data[self.at : self.at + max(n, 0)]
        self.at += max(n, 0)
        return value


class Member:
    """One classic group member on its own connection (a JoinGroup may be held open)."""

    def __init__(self, name: str, bootstrap: str, group: str) -> None:
        host, port = bootstrap.split(",")[0].rsplit(":", 1)
        self.name, self.group, self.id, self.generation = name, group, "", -1
        self.sock = socket.create_connection((host, int(port)))
        self.correlation = 0

    def call(self, api: int, version: int, body: bytes) -> Reader:
        self.correlation += 1
        frame = struct.pack(">hhi", api, version, self.correlation) + s(self.name) + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        reader = Reader(self._read(struct.unpack(">i", self._read(4))[0]))
        assert reader.take(">i") == self.correlation
        return reader

    def _read(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            data += chunk
        return data

    def find_coordinator(self, timeout: float = 60) -> None:
        """FindCoordinator v2 until it answers (the offsets topic is made on first use)."""
        deadline = time.monotonic() + timeout
        while True:
            r = self.call(10, 2, s(self.group) + b"\x00")
            r.take(">i")
            error = r.take(">h")
            if error == 0:
                return
            assert time.monotonic() < deadline, f"FindCoordinator: {ERRORS.get(error, error)}"
            time.sleep(0.2)

    def join(self) -> tuple[str, list[str]]:
        """JoinGroup v5 (retrying MEMBER_ID_REQUIRED): (leader, members if leader)."""
        while True:
            protocols = struct.pack(">i", 1) + s("cooperative-sticky") + b(b"")
            body = (s(self.group) + struct.pack(">ii", 10_000, 30_000) + s(self.id) + s(None)
                    + s("consumer") + protocols)  # fmt: skip
            r = self.call(11, 5, body)
            r.take(">i")
            error, generation = r.take(">h"), r.take(">i")
            r.string()
            leader, self.id = r.string() or "", r.string() or ""
            members = []
            for _ in range(r.take(">i")):
                members.append(r.string() or "")
                r.string()
                r.bytes_()
            if error == 79:  # MEMBER_ID_REQUIRED: join again with the id given
                continue
            if error in (14, 15, 16):  # the coordinator is still loading
                time.sleep(0.2)
                continue
            assert error == 0, f"{self.name} JoinGroup: {ERRORS.get(error, error)}"
            self.generation = generation
            return leader, members

    def sync(self, members: list[str]) -> None:
        """SyncGroup v3; the leader hands every member an empty assignment."""
        assignments = struct.pack(">i", len(members)) + b"".join(s(m) + b(b"") for m in members)
        body = (s(self.group) + struct.pack(">i", self.generation) + s(self.id) + s(None)
                + assignments)  # fmt: skip
        r = self.call(14, 3, body)
        r.take(">i")
        error = r.take(">h")
        assert error == 0, f"{self.name} SyncGroup: {ERRORS.get(error, error)}"

    def commit(self, topic: str, offset: int, generation: int) -> str:
        """OffsetCommit v7 of partition 0: the coordinator's answer."""
        partitions = struct.pack(">i", 1) + struct.pack(">iqi", 0, offset, -1) + s(None)
        topics = struct.pack(">i", 1) + s(topic) + partitions
        body = s(self.group) + struct.pack(">i", generation) + s(self.id) + s(None) + topics
        r = self.call(8, 7, body)
        r.take(">i")
        r.take(">i")
        r.string()
        r.take(">i")
        r.take(">i")
        return ERRORS.get(error := r.take(">h"), str(error))

    def committed(self, topic: str) -> int:
        """OffsetFetch v5 of partition 0."""
        body = s(self.group) + struct.pack(">i", 1) + s(topic) + struct.pack(">ii", 1, 0)
        r = self.call(9, 5, body)
        r.take(">i")
        r.take(">i")
        r.string()
        r.take(">i")
        r.take(">i")
        return r.take(">q")

    def state(self) -> str:
        """DescribeGroups v3: the group's state."""
        r = self.call(15, 3, struct.pack(">i", 1) + s(self.group) + b"\x00")
        r.take(">i")
        r.take(">i")
        r.take(">h")
        r.string()
        return r.string() or ""


def raw_protocol(broker: Broker) -> list[tuple[str, str, str, str]]:
    """(step, group state, answer, expected) for each OffsetCommit of part 1."""
    topic, group = broker.create_topic(1), broker.group()
    a = Member("member-a", broker.bootstrap, group)
    a.find_coordinator()
    _, members = a.join()
    a.sync(members)
    rows = [("A alone, generation 1", a.state(), a.commit(topic, 10, 1), "NONE")]
    b_member = Member("member-b", broker.bootstrap, group)
    joined: list[tuple[str, list[str]]] = []
    waiting = threading.Thread(target=lambda: joined.append(b_member.join()), daemon=True)
    waiting.start()  # held by the coordinator until A rejoins: PreparingRebalance
    deadline = time.monotonic() + 10
    while a.state() != "PreparingRebalance" and time.monotonic() < deadline:
        time.sleep(0.05)
    rows.append(("B joining, A not rejoined: A's generation 1", a.state(),
                 a.commit(topic, 20, 1), "NONE"))  # fmt: skip
    rows.append(("same, offset read back", a.state(), str(a.committed(topic)), "20"))
    rows.append(("same, a stale generation 0", a.state(), a.commit(topic, 21, 0),
                 "ILLEGAL_GENERATION"))  # fmt: skip
    leader, members = a.join()  # A rejoins: generation 2, CompletingRebalance until SyncGroup
    waiting.join(10)
    rows.append(("both rejoined, before SyncGroup: generation 2", a.state(),
                 a.commit(topic, 30, 2), "REBALANCE_IN_PROGRESS"))  # fmt: skip
    rows.append(("same, the old generation 1", a.state(), a.commit(topic, 31, 1),
                 "ILLEGAL_GENERATION"))  # fmt: skip
    syncing = threading.Thread(target=lambda: b_member.sync([]), daemon=True)
    syncing.start()
    a.sync(members if leader == a.id else [])
    syncing.join(10)
    rows.append(("after SyncGroup: generation 2", a.state(), a.commit(topic, 40, 2), "NONE"))
    rows.append(("same, offset read back", a.state(), str(a.committed(topic)), "40"))
    return rows


def real_clients(broker: Broker) -> list[dict[str, Any]]:
    """Part 2: every revocation with partitions, the group state then and the commit result."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient
    from rebalance_guard.confluent_kafka import Consumer, RebalanceListener, set_rebalance_listener

    topic, group = broker.create_topic(4), broker.group()
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    producer = Producer({"bootstrap.servers": broker.bootstrap})
    for n in range(400):
        producer.produce(topic, str(n).encode(), partition=n % 4)
    producer.flush(30)
    seen: list[dict[str, Any]] = []
    phase = ["a alone"]

    def state() -> str:
        described = admin.describe_consumer_groups([group])[group].result(timeout=10)
        return str(described.state).rsplit(".", 1)[-1]

    class Recorder(RebalanceListener):
        def __init__(self, name: str) -> None:
            self.name = name

        def on_partitions_revoked(self, partitions: Any, consumer: Any, /) -> None:
            if not partitions:
                return
            before = state()
            try:
                result = f"committed {[(tp.partition, tp.offset) for tp in consumer.commit()]}"
            except Exception as exc:
                result = f"{type(exc).__name__}: {exc}"
            revoked = sorted(tp.partition for tp in partitions)
            seen.append({"phase": phase[0], "member": self.name, "revoked": revoked,
                         "state": before, "commit": result})  # fmt: skip

    def member(name: str) -> Any:
        config = {"bootstrap.servers": broker.bootstrap, "group.id": group,
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  **confluent_group_config("cooperative")}  # fmt: skip
        consumer = Consumer(config)
        set_rebalance_listener(consumer, Recorder(name))
        consumer.subscribe([topic])
        return consumer

    def settle(what: str | None) -> None:
        """Poll until every member owns part of the 4 partitions and ``what`` revoked some."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            all(c.assignment() for c in consumers)
            and sum(len(c.assignment()) for c in consumers) == 4
            and (what is None or any(entry["phase"] == what for entry in seen))
        ):
            for c in consumers:
                c.poll(0.05)
        for _ in range(20):  # everyone processes something, so the bare commit has offsets
            for c in consumers:
                c.poll(0.05)

    consumers = [member("a")]
    try:
        settle(None)
        phase[0] = "b joins"
        consumers.append(member("b"))
        settle("b joins")
        phase[0] = "c joins"
        consumers.append(member("c"))
        settle("c joins")
    finally:
        phase[0] = "close"
        for c in consumers:
            c.close()
    return seen


def main() -> int:
    brokers = start_broker()
    broker = next(brokers)
    ok = True
    try:
        print(f"broker: {broker.description}")
        print("\npart 1, raw protocol (classic group, cooperative-sticky):")
        for step, state, answer, expected in raw_protocol(broker):
            ok &= answer == expected
            mark = "ok" if answer == expected else f"UNEXPECTED (expected {expected})"
            print(f"  {step:<48} state {state:<20} -> {answer:<22} {mark}")
        print("\npart 2, confluent-kafka cooperative-sticky, a third member joins:")
        revocations = real_clients(broker)
        for seen in revocations:
            ok &= seen["commit"].startswith("committed")
            print(f"  {seen['phase']}: member {seen['member']} revoked {seen['revoked']} "
                  f"while the group was {seen['state']}: {seen['commit']}")  # fmt: skip
        ok &= any(seen["phase"] == "c joins" for seen in revocations)
    finally:
        next(brokers, None)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
