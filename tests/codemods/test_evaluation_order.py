"""Registering the listener first (``set_rebalance_listener`` before ``subscribe()``) moves the
listener's evaluation ahead of the other arguments; that is the same program when those only
read values (issue 25: a ``pattern=p.address if p else None`` next to a listener made by a
call, seen in a PyPI framework); a call among them stays refused."""

from __future__ import annotations

import textwrap

from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestEvaluationOrder(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_choices_and_identity_tests_of_reads_may_be_evaluated_later(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer

            from .listeners import make_listener


            async def start(self, pattern):
                consumer = AIOKafkaConsumer()
                consumer.subscribe(
                    topics=self.names if self.names is not None else (),
                    pattern=pattern.address if pattern and not self.names else None,
                    listener=make_listener(consumer=consumer, log=self.log),
                )
        """
        after = """
            from aiokafka import AIOKafkaConsumer

            from .listeners import make_listener
            from rebalance_guard.aiokafka import set_rebalance_listener


            async def start(self, pattern):
                consumer = AIOKafkaConsumer()
                set_rebalance_listener(consumer, make_listener(consumer=consumer, log=self.log))
                consumer.subscribe(
                    topics=self.names if self.names is not None else (),
                    pattern=pattern.address if pattern and not self.names else None,
                )
        """
        self.assertCodemod(before, after, expected_warnings=[])


def test_a_call_among_the_other_arguments_stays_refused() -> None:
    source = textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer

        from .listeners import make_listener


        async def start(self):
            consumer = AIOKafkaConsumer()
            consumer.subscribe(topics=self.topic_names(), listener=make_listener(consumer))
        """
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    assert [m.reason for m in result.manual] == [
        "registering the listener first would change the order its arguments are evaluated; "
        "compute them into variables first"
    ]
