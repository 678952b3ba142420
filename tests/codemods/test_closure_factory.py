# ruff: noqa: E501  (the sources and the codemod's exact output read best unwrapped)
"""REAL_WORLD.md: "a listener class ... defined inside a method, capturing the consumer in a
closure", and code whose callbacks reach "a closure's" consumer. The closure's consumer
becomes the view only where it is provably the consumer the listener is registered on: the
function's own variable that the registration is made on, or a factory's parameter given that
very variable at the registration (``listener=self.make_listener(consumer)``, the factory
called only there); and only where the variable holds that one consumer for as long as the
listener lives (bound once, not in a loop, not rebound through ``nonlocal``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult
from rebalance_lint import check_source

FIXTURES = Path(__file__).parent / "fixtures"
MIGRATION_CODES = {"KRB201", "KRB202", "KRB203"}


def _migrate(source: str) -> MigrationResult:
    result = migrate_source(textwrap.dedent(source).encode(), "worker.py")
    assert result.status == "ok", result.reason
    return result


def test_a_factory_given_the_registering_consumer_makes_its_closure_the_view() -> None:
    before = (FIXTURES / "closure_factory.py").read_bytes()
    result = migrate_source(before, "closure_factory.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source == (FIXTURES / "migrated" / "closure_factory.py").read_bytes()
    after = result.new_source.decode()
    assert "                await rebalance_consumer.commit()\n" in after
    assert "end_offsets.update(await rebalance_consumer.end_offsets(list(assigned)))" in after
    assert (
        "        set_rebalance_listener(consumer, self.make_listener(consumer))\n        consumer.subscribe([self.topic])\n"
        in after
    )
    findings = [
        f for f in check_source(before, "closure_factory.py").findings if f.code in MIGRATION_CODES
    ]
    assert {f.code for f in findings} == MIGRATION_CODES and all(f.fixable for f in findings), (
        findings
    )
    assert not [
        f
        for f in check_source(result.new_source, "closure_factory.py").findings
        if f.code in MIGRATION_CODES
    ]


FACTORY = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


def rebalance_listener(label, *, consumer):
    class Committing(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            print(label, "revoked", revoked)
            consumer.commit()

        def on_partitions_assigned(self, assigned):
            pass

    return Committing()


def main():
    consumer = KafkaConsumer(group_id="g")
    {register}
"""


def test_a_function_factory_with_the_consumer_by_keyword() -> None:
    result = _migrate(
        FACTORY.format(
            register='consumer.subscribe(["t"], listener=rebalance_listener("t", consumer=consumer))'
        )
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from kafka import KafkaConsumer
        from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


        def rebalance_listener(label, *, consumer):
            class Committing(RebalanceListener):
                def on_partitions_revoked(self, revoked, rebalance_consumer: RebalanceConsumer):
                    print(label, "revoked", revoked)
                    rebalance_consumer.commit()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass

            return Committing()


        def main():
            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, rebalance_listener("t", consumer=consumer))
            consumer.subscribe(["t"])
        """
    )


CLOSURE = """
from kafka import ConsumerRebalanceListener, KafkaConsumer


def main(topics):
    {bind}

    class Committing(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            consumer.commit()

        def on_partitions_assigned(self, assigned):
            pass

    {register}
"""


@pytest.mark.parametrize(
    ("source", "why"),
    [
        (
            FACTORY.format(
                register='other = KafkaConsumer(group_id="h")\n    consumer.subscribe(["t"], listener=rebalance_listener("t", consumer=other))'
            ),
            "its callbacks use rebalance_listener()'s consumer through a closure and an instance is registered on another consumer",
        ),
        (
            CLOSURE.format(
                bind='consumer = KafkaConsumer(group_id="g")\n    if not topics:\n        consumer = KafkaConsumer(group_id="fallback")',
                register="consumer.subscribe(topics, listener=Committing())",
            ),
            "its callbacks use main()'s consumer through a closure and main() binds consumer more than once",
        ),
        (
            CLOSURE.format(
                bind="pass",
                register="for topic in topics:\n        consumer = KafkaConsumer(group_id=topic)\n        consumer.subscribe([topic], listener=Committing())",
            ),
            "its callbacks use main()'s consumer through a closure and consumer is bound in a loop (line 15), once per iteration",
        ),
        (
            CLOSURE.format(
                bind='consumer = KafkaConsumer(group_id="g")\n\n    def reconnect():\n        nonlocal consumer\n        consumer = KafkaConsumer(group_id="g")',
                register="consumer.subscribe(topics, listener=Committing())\n    return reconnect",
            ),
            "its callbacks use main()'s consumer through a closure and a function nested in main() rebinds consumer (nonlocal, line 9)",
        ),
    ],
    ids=[
        "factory-given-another-consumer",
        "bound-twice",
        "bound-in-a-loop",
        "rebound-through-nonlocal",
    ],
)
def test_a_closure_not_provably_the_registering_consumer_is_refused(source: str, why: str) -> None:
    result = _migrate(source)
    assert result.new_source is None, result.new_source
    reasons = [m.reason for m in result.manual]
    assert any(why in r for r in reasons), reasons
    assert all("derive from the rebalance_guard RebalanceListener by hand" in r for r in reasons), (
        reasons
    )


def test_the_same_closure_bound_once_migrates() -> None:
    """The loop and rebinding refusals above are about those lines only: bound once, outside a
    loop, the same class migrates."""
    result = _migrate(
        CLOSURE.format(
            bind='consumer = KafkaConsumer(group_id="g")',
            register="consumer.subscribe(topics, listener=Committing())",
        )
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert "            rebalance_consumer.commit()\n" in result.new_source.decode()
