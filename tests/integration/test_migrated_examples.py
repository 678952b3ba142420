"""The legacy example programs, migrated by the CLI, run correctly against a real broker.

Two members of one group process a 4-partition topic. Member A processes the first batch
and never commits except in its revoke callback; member B then joins. The test checks that
A's revoke callback ran and its commit landed (the group's committed offsets are exactly
what A processed), that B starts where A stopped, and that across the rebalance every
message is processed exactly once. A program that logs its commits (the AIOConsumer one) is
also held to committing each revoked partition's progress exactly once.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from kafka import __version__ as kafka_version

from tests.codemods.examples import LEGACY, PROGRAMS, ROOT, migrated_examples
from tests.integration.broker import Broker

PARTITIONS = 4
BATCH = 40


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated_examples(tmp_path_factory.mktemp("migrated"))


def _produce(bootstrap: str, topic: str, values: list[str]) -> None:
    producer = Producer({"bootstrap.servers": bootstrap})
    for i, value in enumerate(values):
        producer.produce(topic, value.encode(), partition=i % PARTITIONS)
    assert producer.flush(30) == 0


def _records(path: Path) -> list[tuple[int, int, str]]:
    if not path.exists():
        return []
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(int(p), int(o), v) for p, o, v in rows]


def _wait(condition: Callable[[], bool], what: str, *members: Member, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        exited = [m for m in members if m.proc.poll() is not None]
        if exited or time.monotonic() > deadline:
            stderr = "\n".join(f"--- {m.err.name}\n{m.err.read_text()[-3000:]}" for m in members)
            why = "a member exited" if exited else "timed out"
            raise AssertionError(f"{why} waiting for {what}\n{stderr}")
        time.sleep(0.1)


def _committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    """The group's committed offsets, read without joining the group."""
    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return {tp.partition: tp.offset for tp in reader.committed(parts, timeout=10)}
    finally:
        reader.close()


class Member:
    """One migrated program running as a group member."""

    def __init__(self, program: Path, broker: Broker, topic: str, group: str, out: Path) -> None:
        self.out = out
        self.err = out.with_suffix(".err")
        self._err_file = self.err.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, str(program), broker.bootstrap, topic, group, str(out)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self._err_file,
        )  # fmt: skip

    def events(self, kind: str) -> list[list[int]]:
        text = self.err.read_text()
        return [
            [int(n) for n in re.findall(r"\d+", m)]
            for m in re.findall(rf"{kind} \[([\d, ]*)\]", text)
        ]

    def commits(self) -> list[tuple[int, int]]:
        """(partition, offset) of every commit the program logged (``committed {p: o}``)."""
        return [
            (int(p), int(o))
            for logged in re.findall(r"committed \{([^}]*)\}", self.err.read_text())
            for p, o in re.findall(r"(\d+): (\d+)", logged)
        ]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._err_file.close()
        return code


@pytest.fixture
def members() -> Iterator[list[Member]]:
    started: list[Member] = []
    yield started
    for member in started:
        member.stop()


@pytest.mark.slow
@pytest.mark.parametrize(
    "program",
    [
        pytest.param(p, marks=pytest.mark.kafka_python) if p.startswith("kafka_python") else p
        for p in PROGRAMS
    ],
)
def test_migrated_program_commits_on_revoke_and_processes_once(
    broker: Broker, migrated: Path, program: str, tmp_path: Path, members: list[Member]
) -> None:
    _two_members_across_a_rebalance(migrated / program, broker, tmp_path, members)


@pytest.mark.skipif(
    not kafka_version.startswith("3."), reason="kafka-python 2 runs listeners on the poll thread"
)
def test_unmigrated_kafka_python_program_fails_the_same_check(
    broker: Broker, tmp_path: Path, members: list[Member]
) -> None:
    """The control: on kafka-python 3 the legacy program's commit in the revoke callback
    raises on the IO thread, so the scenario above fails without the migration."""
    with pytest.raises(AssertionError, match=r"Cannot block on net\.run"):
        _two_members_across_a_rebalance(LEGACY / PROGRAMS[0], broker, tmp_path, members)


def _two_members_across_a_rebalance(
    program: Path, broker: Broker, tmp_path: Path, members: list[Member]
) -> None:
    topic, group = broker.create_topic(PARTITIONS), broker.group()
    _produce(broker.bootstrap, topic, [f"first-{i}" for i in range(BATCH)])

    a = Member(program, broker, topic, group, tmp_path / "a.out")
    members.append(a)
    _wait(lambda: len(_records(a.out)) >= BATCH, "member A to process the first batch", a)
    assert _committed(broker.bootstrap, group, topic) == dict.fromkeys(range(PARTITIONS), -1001), (
        "nothing may be committed before the rebalance: commits happen only on revoke"
    )

    b = Member(program, broker, topic, group, tmp_path / "b.out")
    members.append(b)
    _wait(lambda: any(b.events("assigned")), "member B to be assigned partitions", a, b)

    # A's revoke callback committed what it had processed, and the commit landed.
    assert a.events("revoked"), a.err.read_text()
    first = _records(a.out)
    processed = {p: max(o for q, o, _ in first if q == p) + 1 for p in range(PARTITIONS)}
    assert _committed(broker.bootstrap, group, topic) == processed
    if '"committed"' in program.read_text():  # the program logs its commits: each one once
        assert sorted(a.commits()) == sorted(processed.items()), (
            "every revoked partition's progress is committed exactly once, by the revocation"
        )

    _produce(broker.bootstrap, topic, [f"second-{i}" for i in range(BATCH)])
    everything = lambda: _records(a.out) + _records(b.out)  # noqa: E731
    _wait(lambda: len(everything()) >= 2 * BATCH, "both batches to be processed", a, b)
    time.sleep(1)  # a duplicate would show up now
    assert a.stop() == 0, a.err.read_text()
    assert b.stop() == 0, b.err.read_text()

    commits = a.commits() + b.commits()
    assert len(commits) == len(set(commits)), f"some progress was committed twice: {commits}"
    values = [v for _, _, v in everything()]
    duplicates = sorted({v for v in values if values.count(v) > 1})
    assert not duplicates, f"processed twice across the rebalance: {duplicates}"
    assert sorted(values) == sorted(
        [f"first-{i}" for i in range(BATCH)] + [f"second-{i}" for i in range(BATCH)]
    )
    b_first = {p: min(o for q, o, _ in _records(b.out) if q == p) for p, _, _ in _records(b.out)}
    for partition, offset in b_first.items():
        assert offset == processed[partition], (
            "B must start exactly where A's revoke commit left off"
        )
