"""Tests that call a listener's callbacks themselves with the old arity (REAL_WORLD.md:
``listener.on_partitions_assigned([tp])``), in repository mode: the calls go through the
client's listener test harness (``ListenerHarness(listener).assign([tp])``) where that is the
same call, and the migrated tests still pass (run with pytest before and after);
``shapes/harness_direct_calls.py``. Anything else is refused, saying why."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from rebalance_codemods.repository import migrate_repository

from tests.codemods.examples import ROOT, run_cli
from tests.codemods.type_check_diff import added, pyright_errors

CASE = Path(__file__).parent / "fixtures" / "repos" / "harness_tests"
CHECKS = "checks/listener_checks.py"


def _pytest(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "--rootdir", str(root), "-c", "/dev/null", CHECKS],
        cwd=root, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_migrated_tests_still_pass(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(CASE / "before", root)
    before = _pytest(root)
    assert "2 passed" in before.stdout, before.stdout + before.stderr
    result = run_cli("migrate", str(root))
    assert result.returncode == 0, result.stderr
    assert "0 manual site(s)" in result.stderr, result.stderr
    for path in sorted((CASE / "after").rglob("*.py")):
        assert (root / path.relative_to(CASE / "after")).read_bytes() == path.read_bytes(), path
    after = _pytest(root)
    assert "2 passed" in after.stdout, after.stdout + after.stderr
    assert "ListenerHarness(listener).assign({TP})" in (root / CHECKS).read_text()


def _mypy_errors(root: Path) -> dict[str, Counter[str]]:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--show-error-codes",
         "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(root / ".cache"),
         "app", "checks"],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert "error: " not in result.stderr, result.stderr
    errors: dict[str, Counter[str]] = {}
    for line in result.stdout.splitlines():
        if ": error: " in line and line.endswith("]"):
            name, code = Path(line.split(":")[0]).name, line.rsplit("[", 1)[1][:-1]
            errors.setdefault(name, Counter())[code] += 1
    return errors


@pytest.mark.slow
def test_the_migrated_repository_type_checks(tmp_path: Path) -> None:
    """mypy --strict and pyright (standard) report nothing on the migrated repository that
    they did not report before (the fixture is typed: before, only kafka-python's untyped
    base class)."""
    before, after = tmp_path / "before", tmp_path / "after"
    shutil.copytree(CASE / "before", before)
    shutil.copytree(CASE / "after", after)
    mypy_after = _mypy_errors(after)
    assert mypy_after == {}, mypy_after
    assert _mypy_errors(before) == {"listeners.py": Counter({"misc": 1})}
    assert added(pyright_errors(before), pyright_errors(after)) == {}


def test_the_old_calls_fail_on_the_migrated_listener(tmp_path: Path) -> None:
    """What the rewrite saves: the migrated listener called the old way raises TypeError (the
    listener bases have no one-argument method), so the run above can fail."""
    root = tmp_path / "repo"
    shutil.copytree(CASE / "after", root)
    shutil.copy(CASE / "before" / CHECKS, root / CHECKS)
    result = _pytest(root)
    assert "2 failed" in result.stdout and "TypeError" in result.stdout, result.stdout


LISTENER = """
    from kafka import ConsumerRebalanceListener


    class Recording(ConsumerRebalanceListener):
        def __init__(self{init}):
            {store}

        def on_partitions_assigned(self, assigned):
            {body}

        def on_partitions_revoked(self, revoked):
            pass
"""
SERVICE = """
    from kafka import KafkaConsumer

    from app.listeners import Recording


    def run():
        consumer = KafkaConsumer(group_id="g")
        consumer.subscribe(["orders"], listener=Recording({arg}))
        consumer.poll()
"""
CHECK = """
    from unittest import mock

    from kafka import TopicPartition

    from app.listeners import Recording


    def helper(listener):
        return listener


    def test_it():
        listener = Recording({arg})
        {call}
"""
ONE = "listener.on_partitions_assigned([TopicPartition('t', 0)])"
TWO = "listener.on_partitions_assigned([TopicPartition('t', 0), TopicPartition('t', 1)])"
REFUSED = [
    ("a consumer injected into the listener", "self._consumer.commit()", ONE,
     "'s callbacks reach a consumer, which the test harness's view would replace"),
    ("order visible with several partitions", "self.seen.extend(assigned)", TWO,
     "uses its partitions in an order-dependent way (line 10)"),
    ("a list kept as it is", "self.seen = assigned", ONE,
     "uses its partitions other than to iterate or count them (line 10)"),
    ("the instance passed on", "pass", ONE + "\n        helper(listener)",
     "the instance created at checks/listener_checks.py:14 is not registered"),
    ("not a display of TopicPartitions", "pass", "listener.on_partitions_assigned(mock.sentinel)",
     "the instance created at checks/listener_checks.py:14 is not registered"),
    ("a callback the class does not define", "pass",
     "listener.on_partitions_lost([TopicPartition('t', 0)])",
     "on_partitions_lost is called directly at checks/listener_checks.py:15, "
     "but Recording does not define it"),
    ("its result used", "pass", "assert listener.on_partitions_assigned([]) is None",
     "the instance created at checks/listener_checks.py:14 is not registered"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "call", "reason"), REFUSED, ids=[r[0] for r in REFUSED])
def test_other_direct_calls_are_refused(name: str, body: str, call: str, reason: str) -> None:
    injected = "consumer" in body
    files = {
        "app/__init__.py": "",
        "app/listeners.py": LISTENER.format(
            init=", consumer" if injected else "",
            store="self._consumer = consumer" if injected else "self.seen = []",
            body=body,
        ),
        "app/service.py": SERVICE.format(arg="consumer" if injected else ""),
        CHECKS: CHECK.format(arg="mock.Mock()" if injected else "", call=call),
    }
    repo = {path: textwrap.dedent(text).encode() for path, text in files.items()}
    done = migrate_repository(repo)
    assert done.results[CHECKS].new_source is None
    assert done.results["app/listeners.py"].new_source is None
    manual = [site.reason for site in done.results["app/listeners.py"].manual]
    assert any(reason in m for m in manual), manual


def test_an_aiokafka_test_awaiting_the_callback_awaits_the_harness() -> None:
    repo = {
        "app/__init__.py": b"",
        "app/listeners.py": textwrap.dedent(
            """
            from aiokafka.abc import ConsumerRebalanceListener


            class Recording(ConsumerRebalanceListener):
                def __init__(self):
                    self.count = 0

                async def on_partitions_assigned(self, assigned):
                    self.count += len(assigned)

                async def on_partitions_revoked(self, revoked):
                    pass
            """
        ).encode(),
        "app/service.py": textwrap.dedent(
            """
            from aiokafka import AIOKafkaConsumer

            from app.listeners import Recording


            async def run():
                consumer = AIOKafkaConsumer(group_id="g")
                consumer.subscribe(["orders"], listener=Recording())
            """
        ).encode(),
        CHECKS: textwrap.dedent(
            """
            from aiokafka.structs import TopicPartition

            from app.listeners import Recording


            async def test_counts():
                listener = Recording()
                await listener.on_partitions_assigned({TopicPartition("t", 0)})
                assert listener.count == 1
            """
        ).encode(),
    }
    done = migrate_repository(repo)
    assert not done.results["app/listeners.py"].manual
    checks = done.results[CHECKS].new_source
    assert checks is not None
    assert b"from rebalance_guard.testing.aiokafka import ListenerHarness\n" in checks
    assert b'await ListenerHarness(listener).assign({TopicPartition("t", 0)})\n' in checks


def test_a_list_display_goes_through_the_harness_too() -> None:
    """REAL_WORLD.md's ``listener.on_partitions_assigned([tp])``: one partition, iterated."""
    files = {
        "app/__init__.py": "",
        "app/listeners.py": LISTENER.format(
            init="",
            store="self.seen = []",
            body="for tp in assigned:\n                self.seen.append(tp)",
        ),
        "app/service.py": SERVICE.format(arg=""),
        CHECKS: CHECK.format(
            arg="", call=ONE + "\n        assert listener.seen == [TopicPartition('t', 0)]"
        ),
    }
    repo = {path: textwrap.dedent(text).encode() for path, text in files.items()}
    done = migrate_repository(repo)
    assert not done.results["app/listeners.py"].manual
    checks = done.results[CHECKS].new_source
    assert checks is not None
    assert b"    ListenerHarness(listener).assign([TopicPartition('t', 0)])\n" in checks
