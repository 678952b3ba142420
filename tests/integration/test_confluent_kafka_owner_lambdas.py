"""The owner-lambdas fixture, migrated by the real codemod, on Apache Kafka
(``shapes/owner_lambdas.py``): a reader registering its own ``on_assign_cb`` next to a lambda
committing on revoke (``lambda consumer, partitions: consumer.commit(asynchronous=False)``)
and a lambda logging a loss becomes its own listener, the lambdas its ``on_partitions_revoked``
and ``on_partitions_lost``.

Three readers of one group go through four assignments (first member, two joins, one leave)
while a producer keeps writing numbered messages. Auto-commit is off, so the only commits are
the revoke method's (the lambda's body, now on the view; ``close()`` revokes too): without
them a next owner restarts from the beginning and processes offsets twice. Under eager,
cooperative-sticky and KIP-848's ``consumer`` protocol every offset is processed exactly once
and every reader's assignment method ran.

The leaver closes once the group has settled (no assignment callback for SETTLE_S). The
reader's consumer is confluent's own ``Consumer`` (the migration keeps it), whose ``close()``
with an assignment callback still pending leaves the group before it revokes, so the revoke
commits nothing (``rebalance_guard._confluent_common.ClosingRevocation``, reproduced with raw
confluent-kafka callbacks): the original program and the migrated one alike. Measured here
before the settling step: under cooperative-sticky 3 runs of 3 repeated the leaver's last
3-4 offsets; only ``rebalance_guard.confluent_kafka.Consumer`` revokes before closing."""

from __future__ import annotations

import importlib.util
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from confluent_kafka import Message, Producer
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import PROTOCOLS, closing, config, number, poll_until
from tests.integration.test_confluent_kafka_commit_on_revoke import MAX_MESSAGES, PARTITIONS, drain

FIXTURE = Path(__file__).parents[1] / "codemods" / "fixtures" / "owner_lambdas.py"
SETTLE_S = 3.0


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The fixture as ``rebalance-guard migrate`` writes it, imported from a temporary file."""
    result = migrate_source(FIXTURE.read_bytes(), FIXTURE.name)
    assert result.status == "ok" and not result.manual, result
    assert result.new_source is not None
    source = result.new_source.decode()
    assert "lambda consumer" not in source and "subscribe(self.consumer, [topic], self)" in source
    assert not [f for f in check_source(result.new_source, FIXTURE.name).findings
                if f.code.startswith("KRB2")]  # fmt: skip
    path = tmp_path_factory.mktemp("owner_lambdas") / "owner_lambdas_migrated.py"
    path.write_bytes(result.new_source)
    spec = importlib.util.spec_from_file_location("owner_lambdas_migrated", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_revoke_lambda_commits_every_offset_once(
    broker: Broker, migrated: ModuleType, protocol: str
) -> None:
    topic = broker.create_topic(PARTITIONS)
    group = broker.group()
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
    produced = 0
    processed: list[int] = []
    readers: list[Any] = []
    active: list[Any] = []

    def join() -> None:
        reader = migrated.Reader(config(broker, group, protocol=protocol), topic)
        readers.append(reader)
        active.append(reader.consumer)

    def process(consumer: Any, message: Message[Any, Any]) -> None:
        processed.append(number(message))

    def balanced() -> bool:
        """Keep producing; true once every active member owns part of a complete assignment."""
        nonlocal produced
        for _ in range(5 if produced < MAX_MESSAGES else 0):
            producer.produce(topic, str(produced).encode(), partition=produced % PARTITIONS)
            produced += 1
        producer.poll(0)
        owned = [{p.partition for p in c.assignment()} for c in active]
        return all(owned) and sum(map(len, owned)) == PARTITIONS == len(set().union(*owned))

    def rebalanced() -> Callable[[], bool]:
        before = sum(r.assignments for r in readers)
        return lambda: balanced() and sum(r.assignments for r in readers) > before

    def settled() -> Callable[[], bool]:
        """True once no assignment callback ran for SETTLE_S (none is pending)."""
        last = [sum(r.assignments for r in readers), time.monotonic()]

        def done() -> bool:
            count = sum(r.assignments for r in readers)
            if not balanced() or count != last[0]:
                last[:] = [count, time.monotonic()]
            return time.monotonic() - last[1] >= SETTLE_S

        return done

    join()
    with closing(active):  # read at the end: the leaver closed itself
        poll_until(active, balanced, process, what="first member assigned")
        for change in ("join", "join", "leave"):
            if change == "join":
                join()
            else:
                poll_until(active, settled(), process, what="the group to settle")
                leaving = readers[0]
                active.remove(leaving.consumer)
                leaving.close()  # its on_partitions_revoked (the lambda's body) commits
            poll_until(active, rebalanced(), process, what=f"rebalance after {change}")
        assert producer.flush(30) == 0
        drain(active, lambda: len(set(processed)) >= produced, process)

    twice = [n for n, count in Counter(processed).items() if count > 1]
    assert not twice, f"processed more than once: {twice[:20]} ({len(twice)} in all)"
    assert sorted(processed) == list(range(produced))
    assert all(r.assignments for r in readers)
    assert produced > 100
