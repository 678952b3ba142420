# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""An owner whose callbacks already carry the listener's names in confluent's signature
(``shapes/role_named_callbacks.py``): the methods keep their names, their parameters swap;
anything else binding a listener name, or such a method used elsewhere, stays refused."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source

FIXTURES = Path(__file__).parent / "fixtures"
SOURCE = '''
from confluent_kafka import Consumer


class Source:
    def __init__(self, conf):
        self.consumer = Consumer(conf)
        self.consumer.subscribe(["t"], on_assign={assign}, on_revoke=self.on_partitions_revoked)

    def on_partitions_revoked(self, consumer, partitions):
        consumer.commit(asynchronous=False)

    def on_partitions_assigned(self, consumer, partitions):
        print(partitions)
{more}'''


def test_the_fixture_keeps_the_names_and_swaps_the_parameters() -> None:
    result = migrate_source((FIXTURES / "role_named_callbacks.py").read_bytes(), "source.py")
    assert not result.manual, result.manual
    assert result.new_source == (FIXTURES / "migrated" / "role_named_callbacks.py").read_bytes()


def test_both_roles_migrate() -> None:
    source = textwrap.dedent(SOURCE).format(assign="self.on_partitions_assigned", more="")
    result = migrate_source(source.encode(), "source.py")
    assert not result.manual and result.new_source is not None, result.manual
    after = result.new_source.decode()
    assert "class Source(RebalanceListener):" in after
    assert "subscribe(self.consumer, [\"t\"], self)" in after
    assert "    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):" in after
    assert "    def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):" in after


REFUSED = [
    ("a listener name bound by a method registered for another role",
     "self._assign", "\n    def _assign(self, consumer, partitions):\n        pass\n",
     "Source already defines on_partitions_assigned; it cannot become its own listener"),
    ("the listener name bound twice", "self.on_partitions_assigned",
     "\n    on_partitions_assigned = on_partitions_assigned\n",
     "Source already defines on_partitions_assigned; it cannot become its own listener"),
    ("the method used elsewhere too", "self.on_partitions_assigned",
     "\n    def again(self):\n        self.on_partitions_assigned(self.consumer, [])\n",
     "on_partitions_assigned is also used at line 17 with confluent's (consumer, partitions), and already has its listener name, so no wrapper can keep it; give it another name first"),
]
REASONS = [reason for *_, reason in REFUSED]


@pytest.mark.parametrize(("name", "assign", "more", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_is_not_the_same_stays_refused(name: str, assign: str, more: str, reason: str) -> None:
    source = textwrap.dedent(SOURCE).format(assign=assign, more=more)
    result = migrate_source(source.encode(), "source.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, name
    assert [m.reason for m in result.manual] == [reason], result.manual
