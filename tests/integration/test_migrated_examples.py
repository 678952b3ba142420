"""The legacy example programs, migrated by the CLI, run correctly against a real broker.

Two members of one group process a 4-partition topic. Member A processes the first batch
and never commits except in its revoke callback; member B then joins. The test checks that
A's revoke callback ran and its commit landed (the group's committed offsets are exactly
what A processed), that B starts where A stopped, and that across the rebalance every
message is processed exactly once. A program that logs its commits (the AIOConsumer one) is
also held to committing each revoked partition's progress exactly once.

The multi-module programs (packages: the listener class in ``listeners.py``, the consumer
created and the listener registered in ``worker.py``) are migrated by the same one
``rebalance-guard migrate DIR`` run (repository mode), checked to have been migrated on both
sides, and then run with ``python -m PACKAGE`` through the same scenario.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from kafka import __version__ as kafka_version

from tests.codemods.examples import LEGACY, PACKAGES, PROGRAMS, ROOT, migrated_examples
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


class Program:
    """How to start an example: a single file (``python FILE``) or a package under a
    directory (``python -m PACKAGE`` with the directory as the working directory)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.is_dir():
            self.argv, self.cwd = ["-m", path.name], path.parent
            sources = sorted(path.rglob("*.py"))
        else:
            self.argv, self.cwd = [str(path)], ROOT
            sources = [path]
        self.logs_commits = any('"committed"' in p.read_text() for p in sources)


class Member:
    """One migrated program running as a group member."""

    def __init__(self, program: Program, broker: Broker, topic: str, group: str, out: Path) -> None:
        self.out = out
        self.err = out.with_suffix(".err")
        self._err_file = self.err.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, *program.argv, broker.bootstrap, topic, group, str(out)],
            cwd=program.cwd, stdout=subprocess.DEVNULL, stderr=self._err_file,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
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
    _two_members_across_a_rebalance(Program(migrated / program), broker, tmp_path, members)


@pytest.mark.skipif(
    not kafka_version.startswith("3."), reason="kafka-python 2 runs listeners on the poll thread"
)
@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.startswith("kafka_python")])
def test_unmigrated_kafka_python_program_fails_the_same_check(
    broker: Broker, tmp_path: Path, members: list[Member], program: str
) -> None:
    """The control: on kafka-python 3 the legacy program's commit in the revoke callback
    raises on the IO thread, so the scenario above fails without the migration."""
    with pytest.raises(AssertionError, match="a member exited"):
        _two_members_across_a_rebalance(Program(LEGACY / program), broker, tmp_path, members)
    # (read in full: the failure message keeps only the tail of a long traceback)
    assert "Cannot block on net.run" in members[0].err.read_text()


def _client_marks(name: str) -> pytest.MarkDecorator | tuple[()]:
    return pytest.mark.kafka_python if name.startswith("kafka_python") else ()


@pytest.mark.slow
@pytest.mark.parametrize("package", [pytest.param(p, marks=_client_marks(p)) for p in PACKAGES])
def test_migrated_package_commits_on_revoke_and_processes_once(
    broker: Broker, migrated: Path, package: str, tmp_path: Path, members: list[Member]
) -> None:
    """A listener class defined in one module and created and registered in another:
    ``migrate DIR`` rewrote both modules, and the migrated program runs correctly."""
    _assert_migrated_on_both_sides(migrated / package, package)
    _two_members_across_a_rebalance(Program(migrated / package), broker, tmp_path, members)


@pytest.mark.kafka_python
@pytest.mark.skipif(
    not kafka_version.startswith("3."), reason="kafka-python 2 runs listeners on the poll thread"
)
def test_unmigrated_kafka_python_package_fails_the_same_check(
    broker: Broker, tmp_path: Path, members: list[Member]
) -> None:
    """The control for the multi-module program: unmigrated, its listener's commit through
    the injected consumer raises on kafka-python 3's IO thread."""
    package = next(p for p in PACKAGES if p.startswith("kafka_python"))
    legacy = shutil.copytree(LEGACY / package, tmp_path / "legacy" / package)
    with pytest.raises(AssertionError, match="a member exited"):
        _two_members_across_a_rebalance(Program(legacy), broker, tmp_path, members)
    # (read in full: run with -m, the traceback is longer than the failure message's tail)
    assert "Cannot block on net.run" in members[0].err.read_text()


def _imported_from(tree: ast.Module, module: str) -> set[str]:
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == module
        for alias in node.names
    }


def _assert_migrated_on_both_sides(package: Path, name: str) -> None:
    """``listeners.py``: the class derives from rebalance_guard's ``RebalanceListener``, its
    callbacks take ``(partitions, consumer: RebalanceConsumer)``, the injected consumer is
    gone and the revoke commits through the view. ``worker.py``: the listener is created
    without the consumer and registered with ``set_rebalance_listener(consumer, ...)``, and
    ``subscribe()`` no longer takes it."""
    guard = "rebalance_guard." + ("kafka_python" if name.startswith("kafka_python") else "aiokafka")
    listeners = ast.parse((package / "listeners.py").read_text())
    assert {"RebalanceListener", "RebalanceConsumer"} <= _imported_from(listeners, guard)
    (cls,) = [node for node in listeners.body if isinstance(node, ast.ClassDef)]
    assert [ast.unparse(base) for base in cls.bases] == ["RebalanceListener"]
    methods = {
        node.name: node
        for node in cls.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    callbacks = sorted(m for m in methods if m.startswith("on_partitions_"))
    assert callbacks == ["on_partitions_assigned", "on_partitions_lost", "on_partitions_revoked"]
    for callback in callbacks:
        params = methods[callback].args.args
        assert len(params) == 3 and params[0].arg == "self", ast.unparse(methods[callback].args)
        assert ast.unparse(params[2].annotation or ast.Constant(None)) == "RebalanceConsumer"
    assert [a.arg for a in methods["__init__"].args.args] == ["self", "label"]
    assert "self.consumer" not in ast.unparse(cls)
    revoked = methods["on_partitions_revoked"]
    view = revoked.args.args[2].arg
    assert f"{view}.commit()" in ast.unparse(revoked), ast.unparse(revoked)

    worker = ast.parse((package / "worker.py").read_text())
    assert "set_rebalance_listener" in _imported_from(worker, guard)
    calls = [node for node in ast.walk(worker) if isinstance(node, ast.Call)]
    named = lambda func: [c for c in calls if ast.unparse(c.func) == func]  # noqa: E731
    registered = [[ast.unparse(a) for a in c.args] for c in named("set_rebalance_listener")]
    assert len(registered) == 1 and registered[0][0] == "consumer", registered
    assert [ast.unparse(c) for c in named("CommitOnRevoke")] == ["CommitOnRevoke(outfile)"]
    (subscribe,) = named("consumer.subscribe")
    assert len(subscribe.args) <= 1, ast.unparse(subscribe)
    assert all(k.arg == "topics" for k in subscribe.keywords), ast.unparse(subscribe)


def _two_members_across_a_rebalance(
    program: Program, broker: Broker, tmp_path: Path, members: list[Member]
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
    if program.logs_commits:  # the program logs its commits: each one once
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
