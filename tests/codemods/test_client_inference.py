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


def test_the_registered_listeners_base_tells_the_client() -> None:
    """A file importing both clients (kafka-python for ``TopicPartition``, aiokafka for the
    consumer) whose consumer comes from an unannotated factory of another object, registering
    a listener class that derives from aiokafka's base: the registration is aiokafka's (before:
    refused with "cannot tell which Kafka client"). The refused class still says why."""
    source = b"""import aiokafka
from kafka.structs import TopicPartition


class BatchWorker(aiokafka.ConsumerRebalanceListener):
    def __init__(self, app, topics):
        self._app = app
        self._topics = topics

    async def start(self):
        consumer = self._app.consumer_factory("group")
        consumer.subscribe(topics=self._topics, listener=self)  # type: ignore
        return consumer

    async def on_partitions_revoked(self, revoked):
        self._pending = {TopicPartition(tp.topic, tp.partition) for tp in revoked}

    async def on_partitions_assigned(self, assigned):
        pass
"""
    result = migrate_source(source, "worker.py")
    assert result.new_source is not None
    new = result.new_source.decode()
    assert "from rebalance_guard.aiokafka import set_rebalance_listener" in new
    assert "        set_rebalance_listener(consumer, self)\n" in new
    assert "        consumer.subscribe(topics=self._topics)  # type: ignore\n" in new
    assert "cannot tell which Kafka client" not in " ".join(m.reason for m in result.manual)
