# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""One method of the owner registered for two or three roles (``shapes/owner_two_roles.py``,
held_out_6 014/015): it becomes the listener method of its first role and the class gains
``on_partitions_revoked = on_partitions_assigned`` (and so on) right after it. A method that
(un)assigns, itself, through a helper or through the owner's stored consumer, stays refused:
each role replaces that call differently."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"


def _migrated(source: str) -> str:
    result = migrate_source(textwrap.dedent(source).encode(), "source.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    again = migrate_source(result.new_source, "source.py")
    assert again.new_source is None and not again.manual, "not idempotent"
    left = [f for f in check_source(result.new_source, "source.py").findings if f.code.startswith("KRB2")]
    assert not left, left
    return result.new_source.decode()


def test_the_fixture_migrates_to_its_twin_and_checks_clean() -> None:
    before = (FIXTURES / "owner_two_roles.py").read_bytes()
    assert "KRB203" in {f.code for f in check_source(before, "owner_two_roles.py").findings}
    result = migrate_source(before, "owner_two_roles.py")
    assert not result.manual, result.manual
    assert result.new_source == (FIXTURES / "migrated" / "owner_two_roles.py").read_bytes()


def test_assign_and_lost_alias_the_lost_role() -> None:
    after = _migrated(
        """
        from confluent_kafka import Consumer


        class Worker:
            def __init__(self, conf):
                self.consumer = Consumer(conf)
                self.owned = set()

            def start(self):
                self.consumer.subscribe(["t"], on_assign=self._changed, on_lost=self._changed)

            def _changed(self, consumer, partitions):
                self.owned = {p.partition for p in consumer.assignment()}

            def stop(self):
                self.consumer.close()
        """
    )
    assert after == textwrap.dedent(
        """
        from confluent_kafka import Consumer
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        class Worker(RebalanceListener):
            def __init__(self, conf):
                self.consumer = Consumer(conf)
                self.owned = set()

            def start(self):
                subscribe(self.consumer, ["t"], self)

            def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                self.owned = {p.partition for p in consumer.assignment()}

            on_partitions_lost = on_partitions_assigned

            def stop(self):
                self.consumer.close()
        """
    )


def test_a_method_also_called_elsewhere_is_kept_and_aliased() -> None:
    after = _migrated(
        """
        from confluent_kafka import Consumer


        class Worker:
            def __init__(self, conf):
                self.consumer = Consumer(conf)
                self.epoch = 0

            def start(self):
                self.consumer.subscribe(["t"], on_assign=self._reset, on_revoke=self._reset, on_lost=self._reset)
                self._reset(self.consumer, [])

            def _reset(self, consumer, partitions):
                self.epoch += 1
        """
    )
    assert after == textwrap.dedent(
        """
        from confluent_kafka import Consumer
        from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


        class Worker(RebalanceListener):
            def __init__(self, conf):
                self.consumer = Consumer(conf)
                self.epoch = 0

            def start(self):
                subscribe(self.consumer, ["t"], self)
                self._reset(self.consumer, [])

            def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                self.epoch += 1

            on_partitions_revoked = on_partitions_assigned

            def _reset(self, consumer, partitions):
                self.on_partitions_assigned(partitions, consumer)
        """
    )


def test_async_methods_on_an_aioconsumer() -> None:
    after = _migrated(
        """
        from confluent_kafka.aio import AIOConsumer


        class Worker:
            def __init__(self, conf):
                self.consumer = AIOConsumer(conf)
                self.changes = 0

            async def start(self):
                await self.consumer.subscribe(["t"], on_assign=self._changed, on_revoke=self._changed)

            async def _changed(self, consumer, partitions):
                self.changes += 1
        """
    )
    assert "    async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):\n" in after
    assert "\n    on_partitions_revoked = on_partitions_assigned\n" in after
    assert "await subscribe(self.consumer, [\"t\"], self)" in after


OWNER = """
from confluent_kafka import Consumer


class Worker:
    def __init__(self, conf):
        self.consumer = Consumer(conf)

    def start(self):
        self.consumer.subscribe(["t"], on_assign=self._changed, on_revoke=self._changed)

    def _changed(self, consumer, partitions):
{body}
{more}"""

REFUSED = [
    ("an assign on the consumer argument",
     OWNER.format(body="        consumer.incremental_assign(partitions)", more=""), 10,
     "_changed is registered for two roles and calls consumer.incremental_assign() (line 13), which each role replaces differently; split it into one method per role"),
    ("a release on the stored consumer",
     OWNER.format(body="        self.consumer.unassign()", more=""), 10,
     "_changed is registered for two roles and calls self.consumer.unassign() (line 13), which each role replaces differently; split it into one method of Worker per role"),
    ("an assign in a helper given the consumer",
     OWNER.format(body="        self._take(consumer, partitions)", more="\n    def _take(self, consumer, partitions):\n        consumer.assign(partitions)\n"), 10,
     "_changed is registered for two roles and passes its consumer to a helper calling consumer.assign() (line 16), which each role replaces differently; split it into one method per role"),
]
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("name", "source", "line", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_each_role_replaces_differently_stays_refused(name: str, source: str, line: int, reason: str) -> None:
    result = migrate_source(source.encode(), "source.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, name
    assert [(m.line, m.reason) for m in result.manual] == [(line, reason)], result.manual
