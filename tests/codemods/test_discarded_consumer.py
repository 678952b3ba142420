"""A callback that throws its consumer away (``del consumer``, ``_ = consumer``,
``_, _, _ = self, consumer, partitions``: the idioms that silence unused-argument warnings)
migrates: the discard then throws the view away (first held-out sample 006, a base class's
default ``on_assign``). Where ``_`` is read again, or the unpacking is not element by element,
the consumer is a value the callback keeps, and the refusal stays."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source

SOURCE = """
from confluent_kafka import Consumer


class Worker:
    def on_assign(self, consumer, partitions):
        {body}

    def on_revoke(self, consumer, partitions):
        consumer.commit(asynchronous=False)

    def run(self, topic):
        consumer = Consumer({{"group.id": "g"}})
        consumer.subscribe([topic], on_assign=self.on_assign, on_revoke=self.on_revoke)
"""

DISCARDS = [
    "_, _, _ = self, consumer, partitions",
    "_ = consumer",
    "_ = _ = consumer",
    "[_, _] = [consumer, partitions]",
    "_, _ = consumer, partitions\n        print(partitions)",
    "del consumer",
]


@pytest.mark.parametrize("body", DISCARDS)
def test_a_discarded_consumer_migrates_with_the_discard_kept(body: str) -> None:
    result = migrate_source(textwrap.dedent(SOURCE.format(body=body)).encode(), "app.py")
    assert result.status == "ok", result.reason
    assert not result.manual, [(m.line, m.reason) for m in result.manual]
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "class Worker(RebalanceListener):" in after
    assert "def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):" in after
    assert body.splitlines()[0] in after, "the discard stays: it now throws the view away"
    assert "subscribe(consumer, [topic], self)" in after


KEPT = [
    ("_ = consumer\n        print(_)", "stores it"),
    ("_, _ = consumer, partitions\n        print(_)", "uses it as a value"),
    ("_, kept = partitions, consumer", "uses it as a value"),
    ("_, *rest = consumer, partitions", "uses it as a value"),
    ("_, _ = [consumer, partitions], None", "uses it as a value"),
    ("self._ = consumer", "stores it"),
    ("global _\n        _ = consumer", "stores it"),
    ("x = _ = consumer", "stores it"),
]


@pytest.mark.parametrize(("body", "what"), KEPT)
def test_a_consumer_kept_as_a_value_is_still_refused(body: str, what: str) -> None:
    result = migrate_source(textwrap.dedent(SOURCE.format(body=body)).encode(), "app.py")
    reasons = [m.reason for m in result.manual]
    assert reasons, f"{body!r} keeps the consumer, yet it migrated"
    assert any(what in r for r in reasons), reasons
