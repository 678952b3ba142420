# ruff: noqa: E501  (sources and messages as the codemod prints them)
"""A subclass registering a callback it inherits from a class of the same file
(``shapes/inherited_owner_callbacks.py``): the defining class becomes the listener and both
registrations pass ``self`` (the migrated subclass runs on Apache Kafka:
tests/integration/test_confluent_kafka_inherited_owner.py). Anything that could make it
another callback stays refused."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source

FIXTURES = Path(__file__).parent / "fixtures"
BASE = '''
from confluent_kafka import Consumer


class Base:
    def __init__(self, conf):
        self.consumer = Consumer(conf)

    def on_assign(self, consumer, partitions):
        print(partitions)


class Sub(Base{more}):
{body}
    def run(self):
        self.consumer.subscribe(["t"], on_assign=self.on_assign)
'''

NOT_HERE = "self.on_assign is not defined in Sub itself (inherited or assigned); define the callback in the class that registers it first"
REFUSED = [
    ("the subclass binds a listener method's name", "", "    on_partitions_assigned = None\n",
     "Sub already defines on_partitions_assigned; it cannot become its own listener"),
    ("the subclass defines callback_logging", "", "    def callback_logging(self):\n        pass\n", NOT_HERE),
    ("two bases", ", dict", "    pass\n", NOT_HERE),
]
REASONS = [NOT_HERE]


def test_the_fixture_migrates_both_registrations() -> None:
    source = (FIXTURES / "inherited_owner_callbacks.py").read_bytes()
    result = migrate_source(source, "consumers.py")
    assert not result.manual, result.manual
    assert result.new_source == (FIXTURES / "migrated" / "inherited_owner_callbacks.py").read_bytes()
    after = result.new_source.decode()
    assert after.count("subscribe(self.consumer, ") == 2
    assert "class TransactionConsumer(MessageConsumer):" in after


@pytest.mark.parametrize(("name", "more", "body", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
def test_what_could_be_another_callback_stays_refused(name: str, more: str, body: str, reason: str) -> None:
    source = textwrap.dedent(BASE).format(more=more, body=body)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result.reason
    assert result.new_source is None, name
    assert [m.reason for m in result.manual] == [reason], result.manual


def test_a_subclass_overriding_the_callback_registers_its_own() -> None:
    """Its own method: the subclass is the owner, as before this shape."""
    body = "    def on_assign(self, consumer, partitions):\n        pass\n"
    source = textwrap.dedent(BASE).format(more="", body=body)
    result = migrate_source(source.encode(), "app.py")
    assert not result.manual and result.new_source is not None, result.manual
    assert "class Sub(Base, RebalanceListener):" in result.new_source.decode()
