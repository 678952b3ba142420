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


def test_a_call_before_the_listener_is_evaluated_first_still() -> None:
    """``topics=self.topic_names()`` ran before ``make_listener(consumer)``: it goes into a
    variable on the line before the registration (shapes/hoisted_arguments.py)."""
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
    assert result.manual == ()
    assert result.new_source is not None
    assert result.new_source.decode().endswith(
        "    consumer = AIOKafkaConsumer()\n"
        "    topics = self.topic_names()\n"
        "    set_rebalance_listener(consumer, make_listener(consumer))\n"
        "    consumer.subscribe(topics=topics)\n"
    )
    assert migrate_source(result.new_source, "app.py").new_source is None


def test_the_variables_take_fresh_names_and_run_in_the_original_order() -> None:
    """Each argument before the listener that is not a constant, in source order, under a
    name the file does not use; an argument after the listener stays (it ran after it)."""
    source = textwrap.dedent(
        """
        from kafka import KafkaConsumer

        from .listeners import make_listener

        calls = []


        def topics():
            calls.append("topics")
            return ["t"]


        def run(pattern_of):
            consumer = KafkaConsumer()
            consumer.subscribe(topics(), pattern_of("x"), make_listener())
        """
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.manual == (), result.manual
    assert result.new_source is not None
    assert result.new_source.decode().endswith(
        "    consumer = KafkaConsumer()\n"
        "    topics_arg = topics()\n"
        '    pattern = pattern_of("x")\n'
        "    set_rebalance_listener(consumer, make_listener())\n"
        "    consumer.subscribe(topics_arg, pattern)\n"
    )


def test_in_a_class_body_it_stays_refused() -> None:
    source = textwrap.dedent(
        """
        from kafka import KafkaConsumer

        from .listeners import make_listener


        class Service:
            consumer = KafkaConsumer()
            consumer.subscribe(load(), listener=make_listener())
        """
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.new_source is None
    assert [m.reason for m in result.manual] == [
        "registering the listener first would change the order its arguments are evaluated, "
        "and in a class body they cannot go into variables first (they would become class "
        "attributes); compute them into variables first"
    ]
