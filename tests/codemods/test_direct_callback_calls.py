# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener's callback calling another of its own callbacks through ``self`` (issue 25:
direct calls with the old arity; kafka-python 3 listeners whose ``on_partitions_lost`` runs
their revocation): the view is in scope there, so the call passes it along; a wrapper that is
its own listener on ``self._consumer`` calling its callback from another method passes that
consumer. Direct calls anywhere else stay refused (``shapes/direct_callback_calls.py``)."""

from __future__ import annotations

import textwrap

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestDirectCallbackCalls(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_lost_callback_running_the_revocation_passes_the_view(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Flush(ConsumerRebalanceListener):
                def on_partitions_revoked(self, revoked):
                    print("flush", revoked)

                def on_partitions_assigned(self, assigned):
                    pass

                def on_partitions_lost(self, lost):
                    self.on_partitions_revoked(lost)


            consumer = KafkaConsumer()
            consumer.subscribe(["t"], listener=Flush())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Flush(RebalanceListener):
                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    print("flush", revoked)

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass

                def on_partitions_lost(self, lost, consumer: RebalanceConsumer):
                    self.on_partitions_revoked(lost, consumer=consumer)


            consumer = KafkaConsumer()
            set_rebalance_listener(consumer, Flush())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_the_view_goes_by_the_called_methods_parameter_name(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener


            class Reset(ConsumerRebalanceListener):
                async def on_partitions_revoked(self, revoked):
                    consumer = len(revoked)
                    print(consumer)

                async def on_partitions_assigned(self, assigned):
                    await self.on_partitions_revoked(assigned)


            async def main():
                consumer = AIOKafkaConsumer()
                consumer.subscribe(["t"], listener=Reset())
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Reset(RebalanceListener):
                async def on_partitions_revoked(self, revoked, rebalance_consumer: RebalanceConsumer):
                    consumer = len(revoked)
                    print(consumer)

                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    await self.on_partitions_revoked(assigned, rebalance_consumer=consumer)


            async def main():
                consumer = AIOKafkaConsumer()
                set_rebalance_listener(consumer, Reset())
                consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_wrapper_running_its_own_callback_passes_its_own_consumer(self) -> None:
        """REAL_WORLD.md's ``self.on_partitions_revoked(...)`` in a wrapper that is its own
        listener on ``self._consumer``: no view there, but the callback's ``self._consumer``
        became its consumer parameter, so passing ``self._consumer`` runs what it ran."""
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Wrapper(ConsumerRebalanceListener):
                def __init__(self, topics):
                    self._consumer = KafkaConsumer(group_id="g")
                    self._consumer.subscribe(topics, listener=self)

                def close(self):
                    self.on_partitions_revoked(self._consumer.assignment())
                    self._consumer.close()

                def on_partitions_revoked(self, revoked):
                    self._consumer.commit()

                def on_partitions_assigned(self, assigned):
                    pass
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Wrapper(RebalanceListener):
                def __init__(self, topics):
                    self._consumer = KafkaConsumer(group_id="g")
                    set_rebalance_listener(self._consumer, self)
                    self._consumer.subscribe(topics)

                def close(self):
                    self.on_partitions_revoked(self._consumer.assignment(), consumer=self._consumer)
                    self._consumer.close()

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass
        """
        self.assertCodemod(before, after, expected_warnings=[])


HEAD = "from kafka import ConsumerRebalanceListener, KafkaConsumer\n\n"
BODY = (
    "class L(ConsumerRebalanceListener):\n"
    "    def on_partitions_revoked(self, revoked):\n        pass\n\n"
    "    def on_partitions_assigned(self, assigned):\n        {call}\n\n"
    "    def reset(self):\n        {other}\n\n"
    "c = KafkaConsumer()\nc.subscribe(['t'], listener=L())\n"
)
REFUSED = [
    ("from a method that is no callback (no view there)", "pass", "self.on_partitions_revoked([])"),
    ("from a nested function (it may run after the view expired)",
     "(lambda: self.on_partitions_revoked(assigned))()", "pass"),
    ("on another object", "other.on_partitions_revoked(assigned)", "pass"),
    ("with a keyword", "self.on_partitions_revoked(revoked=assigned)", "pass"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "call", "other"), REFUSED, ids=[c[0] for c in REFUSED])
def test_other_direct_calls_stay_refused(name: str, call: str, other: str) -> None:
    source = HEAD + BODY.format(call=call, other=other)
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert any("is called directly at line" in m.reason for m in result.manual), result.manual
