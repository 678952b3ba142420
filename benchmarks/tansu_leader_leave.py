"""Protocol-level repro: the group leader leaves (LeaveGroup) between its JoinGroup and its
SyncGroup, i.e. while the group is still forming. Kafka's coordinator then removes the member,
elects a new leader from the remaining members and completes a new generation. tansu (the test
broker) keeps the departed member as the leader: every later JoinGroup names it, no SyncGroup
ever carries assignments, followers get REBALANCE_IN_PROGRESS forever (issue 9, "confluent
cooperative stall on tansu: root cause" in benchmarks/RESULTS.md).

    python benchmarks/tansu_leader_leave.py [--when after-join|before-rejoin|after-sync]
                                            [--how leave|vanish]

--when: the leader departs after its JoinGroup of the new round (default), before it rejoins
(its heartbeat not yet answered REBALANCE_IN_PROGRESS), or after its SyncGroup (the control:
a stable group). --how: with a LeaveGroup (a graceful close, default) or by going silent (a
SIGKILL: tansu notices it after the 6 s session timeout). Raw requests on sockets
(JoinGroup v5, SyncGroup v3, Heartbeat v3, LeaveGroup v1), no client library, against a tansu
started like the test fixture (or KAFKA_BOOTSTRAP_SERVERS). Exit status 0 when the group
recovers, 1 when it stays stuck.
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

from tests.integration.broker import start_broker  # noqa: E402

ERRORS = {0: "NONE", 22: "ILLEGAL_GENERATION", 25: "UNKNOWN_MEMBER_ID",
          27: "REBALANCE_IN_PROGRESS", 79: "MEMBER_ID_REQUIRED"}  # fmt: skip
T0 = time.monotonic()


def log(*fields: object) -> None:
    print(f"{time.monotonic() - T0:7.3f}s", *fields, flush=True)


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
    """One group member on its own connection (a JoinGroup may be held for seconds)."""

    def __init__(self, name: str, bootstrap: str, group: str) -> None:
        host, port = bootstrap.rsplit(":", 1)
        self.name, self.group, self.id, self.generation = name, group, "", -1
        self.sock = socket.create_connection((host, int(port)))
        self.correlation = 0

    def call(self, api: int, version: int, body: bytes) -> Reader:
        self.correlation += 1
        header = struct.pack(">hhi", api, version, self.correlation) + s(self.name)
        frame = header + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", self._read(4))[0]
        reader = Reader(self._read(size))
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

    def join(self) -> tuple[str, str, list[str]]:
        protocols = (
            struct.pack(">i", 1) + s("cooperative-sticky") + b(b"meta-" + self.name.encode())
        )
        body = (s(self.group) + struct.pack(">ii", 6000, 10000) + s(self.id) + s(None)
                + s("consumer") + protocols)  # fmt: skip
        started = time.monotonic()
        r = self.call(11, 5, body)
        r.take(">i")
        error, generation = r.take(">h"), r.take(">i")
        r.string()
        leader, member_id = r.string() or "", r.string() or ""
        members = []
        for _ in range(r.take(">i")):
            members.append(r.string() or "")
            r.string()
            r.bytes_()
        self.id = member_id
        if error == 79:  # MEMBER_ID_REQUIRED: join again with the id the broker gave
            log(f"{self.name}: JoinGroup -> MEMBER_ID_REQUIRED, member id {short(member_id)}")
            return self.join()
        self.generation = generation
        log(f"{self.name}: JoinGroup -> {ERRORS.get(error, error)} generation {generation} "
            f"leader {short(leader)}{' (me)' if leader == self.id else ''} members "
            f"{[short(m) for m in members]} ({time.monotonic() - started:.1f} s)")  # fmt: skip
        return ERRORS.get(error, str(error)), leader, members

    def sync(self, members: list[str] = ()) -> str:  # type: ignore[assignment]
        assignments = struct.pack(">i", len(members)) + b"".join(
            s(m) + b(b"assignment-for-" + m.encode()) for m in members
        )
        body = (s(self.group) + struct.pack(">i", self.generation) + s(self.id) + s(None)
                + assignments)  # fmt: skip
        started = time.monotonic()
        r = self.call(14, 3, body)
        r.take(">i")
        error = ERRORS.get(e := r.take(">h"), str(e))
        assignment = r.bytes_()
        log(f"{self.name}: SyncGroup generation {self.generation} "
            f"({'leader, ' + str(len(members)) + ' assignments' if members else 'follower'}) -> "
            f"{error} assignment {assignment!r} ({time.monotonic() - started:.1f} s)")  # fmt: skip
        return error

    def heartbeat(self) -> str:
        body = s(self.group) + struct.pack(">i", self.generation) + s(self.id) + s(None)
        r = self.call(12, 3, body)
        r.take(">i")
        error = ERRORS.get(e := r.take(">h"), str(e))
        log(f"{self.name}: Heartbeat generation {self.generation} -> {error}")
        return error

    def leave(self) -> str:
        r = self.call(13, 1, s(self.group) + s(self.id))
        r.take(">i")
        error = ERRORS.get(e := r.take(">h"), str(e))
        log(f"{self.name}: LeaveGroup {short(self.id)} -> {error}")
        return error


def short(member_id: str) -> str:
    return member_id[-8:] if member_id else "''"


def scenario(bootstrap: str, when: str = "after-join", how: str = "leave", rounds: int = 4) -> bool:
    group = f"leader-leave-{int(time.time() * 1000)}"
    a, b_, c = (Member(n, bootstrap, group) for n in ("A", "B", "C"))
    log("A joins alone and becomes leader")
    _, leader, members = a.join()
    assert leader == a.id
    a.sync(members)
    log("B joins: a rebalance starts")
    b_.join()
    if when != "before-rejoin":
        assert a.heartbeat() == "REBALANCE_IN_PROGRESS"
        _, leader, members = a.join()
        if when == "after-sync":
            log("control: A (leader) completes the generation with SyncGroup")
            a.sync(members)
            b_.sync()
    log(f"A (leader) departs ({how}) {when}")
    if how == "leave":
        a.leave()
    else:
        a.sock.close()
    log("B: what a consumer does next (sync, on REBALANCE_IN_PROGRESS rejoin); C joins")
    recovered = False
    for round_ in range(rounds):
        if round_ == 1:
            c.join()
        _, leader, members = b_.join()
        if leader == a.id:
            log(f"   -> the leader named is A ({short(a.id)}), which is gone")
        if leader == b_.id:
            recovered = b_.sync(members) == "NONE"
            break
        if b_.sync() == "NONE":
            recovered = True
            break
    log("RECOVERED: a remaining member was elected leader" if recovered
        else "STUCK: no remaining member is ever elected leader")  # fmt: skip
    return recovered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--when", choices=["after-join", "before-rejoin", "after-sync"], default="after-join"
    )
    parser.add_argument("--how", choices=["leave", "vanish"], default="leave")
    args = parser.parse_args()
    brokers = start_broker()
    broker = next(brokers)
    try:
        return 0 if scenario(broker.bootstrap, args.when, args.how) else 1
    finally:
        next(brokers, None)


if __name__ == "__main__":
    sys.exit(main())
