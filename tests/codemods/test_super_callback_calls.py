# ruff: noqa: E501  (the "after" strings are the codemod's exact output)
"""A listener's callback calling the client base's own through ``super()`` with the old arity
(held_out_9 014: ``return super().on_partitions_assigned(assigned)``, a pattern of tutorials):
the base becomes rebalance_guard's ``RebalanceListener``, whose callbacks take the view
positionally, so the call passes it as the second argument (``shapes/direct_callback_calls.py``,
edit ``append_arg``). The base's methods do nothing on either side (kafka-python's and aiokafka's
are abstract no-ops; rebalance_guard's return None), so the call does what it did; the ``return``
of its None goes (a listener method returns nothing). Only one base, the client's, and a bare
``super()`` in the callback's own body: anything else stays refused
(test_direct_callback_calls.py's REFUSED)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners
from rebalance_lint import check_source


class TestSuperCallbackCalls(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_the_base_called_through_super_gets_the_view(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Listener(ConsumerRebalanceListener):
                def __init__(self) -> None:
                    super().__init__()

                def on_partitions_assigned(self, assigned):
                    print("assigned", assigned)
                    return super().on_partitions_assigned(assigned)

                def on_partitions_revoked(self, revoked):
                    super().on_partitions_revoked(
                        revoked,
                    )


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Listener())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):
                def __init__(self) -> None:
                    super().__init__()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    print("assigned", assigned)
                    super().on_partitions_assigned(assigned, consumer)

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    super().on_partitions_revoked(
                        revoked,
                        consumer,
                    )


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Listener())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_an_aiokafka_listener_too(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener


            class Listener(ConsumerRebalanceListener):
                async def on_partitions_revoked(self, revoked):
                    super().on_partitions_revoked(revoked)

                async def on_partitions_assigned(self, assigned):
                    pass


            consumer = AIOKafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Listener())
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):
                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    super().on_partitions_revoked(revoked, consumer)

                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass


            consumer = AIOKafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Listener())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])


SOURCE = """
from kafka import ConsumerRebalanceListener, KafkaConsumer
{extra}

class Listener({bases}):
    def on_partitions_assigned(self, assigned):
        self.seen = assigned
        return super().on_partitions_assigned(assigned)

    def on_partitions_revoked(self, revoked):
        pass


consumer = KafkaConsumer(group_id="g")
consumer.subscribe(["t"], listener=Listener())
"""


def test_the_migrated_call_runs_and_checks_clean() -> None:
    """Run: the migrated callback, called as the adapter calls it (partitions, view), reaches
    the base's no-op with the view (a one-argument call would raise TypeError there)."""
    source = textwrap.dedent(SOURCE.format(extra="", bases="ConsumerRebalanceListener"))
    result = migrate_source(source.encode(), "app.py")
    assert not result.manual and result.new_source is not None, result.manual
    assert [f.code for f in check_source(result.new_source, "app.py").findings] == []
    assert migrate_source(result.new_source, "app.py").new_source is None, "idempotent"
    module: dict[str, Any] = {}
    classes = result.new_source.split(b"\nconsumer = ")[0]  # no broker here: no consumer
    exec(compile(classes, "app.py", "exec"), module)
    listener = module["Listener"]()
    assert listener.on_partitions_assigned({"tp"}, object()) is None
    assert listener.seen == {"tp"}


@pytest.mark.parametrize(
    ("name", "extra", "bases"),
    [
        ("two bases", "class Mixin:\n    pass\n", "Mixin, ConsumerRebalanceListener"),
        ("super rebound", "def super():\n    return None\n", "ConsumerRebalanceListener"),
    ],
)
def test_anything_else_stays_refused(name: str, extra: str, bases: str) -> None:
    source = textwrap.dedent(SOURCE.format(extra=extra, bases=bases))
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None, name
    assert result.manual, name
