# ruff: noqa: E501  (the "after" string is the codemod's exact output; LibCST does not wrap)
"""Client inference (issue 12 item 3): in a file that imports both kafka-python and aiokafka,
which client a ``subscribe(listener=...)`` belongs to comes from where the consumer is created:
an attribute assigned in ``__init__`` and an annotated parameter (the rules' model), a factory
function of the same module (the planner). Unknown consumers are still refused
(tests/codemods/test_refusals.py, case ``which-client``)."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestClientInference(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_attribute_annotation_and_factory_tell_the_client(self) -> None:
        before = """
            import aiokafka
            from kafka import KafkaConsumer

            from listeners import AuditListener, make_listener


            def make_consumer(group):
                return KafkaConsumer(group_id=group)


            class Reader:
                def __init__(self, topics):
                    self._consumer = KafkaConsumer(group_id="g")
                    self._consumer.subscribe(topics, listener=AuditListener())


            async def run(consumer: aiokafka.AIOKafkaConsumer, topics):
                consumer.subscribe(topics, listener=make_listener())


            def factory(topics):
                consumer = make_consumer("g")
                consumer.subscribe(topics, listener=make_listener())
        """
        after = """
            import aiokafka
            from kafka import KafkaConsumer

            from listeners import AuditListener, make_listener
            from rebalance_guard.aiokafka import set_rebalance_listener as guard_set_rebalance_listener
            from rebalance_guard.kafka_python import set_rebalance_listener


            def make_consumer(group):
                return KafkaConsumer(group_id=group)


            class Reader:
                def __init__(self, topics):
                    self._consumer = KafkaConsumer(group_id="g")
                    set_rebalance_listener(self._consumer, AuditListener())
                    self._consumer.subscribe(topics)


            async def run(consumer: aiokafka.AIOKafkaConsumer, topics):
                guard_set_rebalance_listener(consumer, make_listener())
                consumer.subscribe(topics)


            def factory(topics):
                consumer = make_consumer("g")
                set_rebalance_listener(consumer, make_listener())
                consumer.subscribe(topics)
        """
        self.assertCodemod(before, after, expected_warnings=[])


def test_a_factory_returning_something_else_is_still_refused() -> None:
    source = b"""import aiokafka
import kafka


def make_consumer(kind):
    return CONSUMERS[kind]


consumer = make_consumer("a")
consumer.subscribe(["t"], listener=make_listener())
"""
    result = migrate_source(source, "x.py")
    assert result.new_source is None
    assert [(m.line, m.reason[:58]) for m in result.manual] == [
        (10, "cannot tell which Kafka client this subscribe() belongs to")
    ]
