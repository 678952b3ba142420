"""The migrated kafka-python 3 async listeners (tests/codemods/fixtures/migrated/
kafka_python_async_listener.py, what ``migrate`` makes of its fixture) run on the broker.

``OffsetTracker`` seeks partition 0 to offset 2 on assignment and, on close(), awaits the
commit of what it processed through the async view; ``CommitEverything``'s bare ``commit()``
(a RuntimeError on kafka-python 3's IO loop before the migration) is awaited and commits the
consumed positions. kafka-python 2 cannot run async listeners: skipped there.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from kafka import KafkaConsumer, TopicPartition

from tests.integration.broker import Broker
from tests.integration.kafka_python_support import KP3, produce

pytestmark = [
    pytest.mark.kafka_python,
    pytest.mark.skipif(not KP3, reason="kafka-python 2 refuses async listeners (no IO loop)"),
]

MIGRATED = Path(__file__).parents[1] / "codemods/fixtures/migrated/kafka_python_async_listener.py"


def _migrated() -> ModuleType:
    spec = importlib.util.spec_from_file_location("migrated_kafka_python_async", MIGRATED)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _committed(bootstrap: str, group: str, topic: str) -> dict[int, int | None]:
    reader = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        return {p: reader.committed(TopicPartition(topic, p)) for p in (0, 1)}
    finally:
        reader.close(autocommit=False)


def _until(condition: Callable[[], bool], what: str, errors: list[BaseException]) -> None:
    deadline = time.monotonic() + 60
    while not condition():
        assert not errors, errors
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _member(
    target: Callable[..., None], *args: Any
) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            target(*args)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def test_the_tracker_seeks_on_assign_and_commits_on_revoke(broker: Broker) -> None:
    topic = broker.create_topic(partitions=2)
    produce(broker.bootstrap, topic, range(10), partitions=2)  # offsets 0-4 each
    group = broker.group()
    stop, seen = threading.Event(), []
    thread, errors = _member(_migrated().run, broker.bootstrap, topic, group, stop, seen)
    expected = [(0, o) for o in range(2, 5)] + [(1, o) for o in range(5)]
    _until(lambda: len(seen) >= len(expected), "the records after the seek", errors)
    stop.set()
    thread.join(timeout=60)
    assert not thread.is_alive() and not errors, errors
    assert sorted(seen) == expected
    assert _committed(broker.bootstrap, group, topic) == {0: 5, 1: 5}  # awaited on revoke


def test_a_bare_commit_is_awaited_on_the_view(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    topic = broker.create_topic(partitions=2)
    produce(broker.bootstrap, topic, range(10), partitions=2)
    group = broker.group()
    module = _migrated()
    stop = threading.Event()
    with caplog.at_level(logging.INFO, logger=module.__name__):
        thread, errors = _member(module.run_committing, broker.bootstrap, topic, group, stop)
        _until(lambda: "assigned" in caplog.text, "the assignment", errors)
        time.sleep(3)  # fetch the ten records
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive() and not errors, errors
    assert "revoked" in caplog.text  # close() revoked: the callback ran to its end
    assert _committed(broker.bootstrap, group, topic) == {0: 5, 1: 5}
