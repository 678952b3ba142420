# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""confluent-kafka bound-method callbacks (issue 12 item 1): ``on_assign=self._on_assign`` in the
class that owns the consumer; the owner becomes its own RebalanceListener (before/after)."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestConfluentOwner(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_name_mangled_positional_methods_of_a_thread(self) -> None:
        """subscribe([t], self.__on_assign, self.__on_revoke) in a Thread subclass: the listener base is appended, the methods renamed and given the view."""
        before = """
            import threading

            from confluent_kafka import Consumer, TopicPartition


            class ConsumerThread(threading.Thread):
                \"\"\"Consumes one topic; commits on revoke.\"\"\"

                def __init__(self, config: dict[str, object], topic: str) -> None:
                    super().__init__(daemon=True)
                    self._consumer = Consumer(config)
                    self._topic = topic
                    self._offsets: dict[int, int] = {}

                def run(self) -> None:
                    self._consumer.subscribe([self._topic], self.__on_assign, self.__on_revoke)
                    while True:
                        self._consumer.poll(1.0)

                def __on_assign(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
                    print("assigned", partitions)
                    consumer.assign(partitions)

                def __on_revoke(self, consumer: Consumer, partitions: list[TopicPartition]) -> None:
                    consumer.commit(asynchronous=False)
                    consumer.unassign()
        """
        after = """
            import threading

            from confluent_kafka import Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class ConsumerThread(threading.Thread, RebalanceListener):
                \"\"\"Consumes one topic; commits on revoke.\"\"\"

                def __init__(self, config: dict[str, object], topic: str) -> None:
                    super().__init__(daemon=True)
                    self._consumer = Consumer(config)
                    self._topic = topic
                    self._offsets: dict[int, int] = {}

                def run(self) -> None:
                    subscribe(self._consumer, [self._topic], self)
                    while True:
                        self._consumer.poll(1.0)

                def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    print("assigned", partitions)
                    for partition in partitions:
                        consumer.seek(partition)

                def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    consumer.commit(asynchronous=False)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_method_also_called_elsewhere_is_kept_and_called_with_the_view(self) -> None:
        """on_lost=self._on_revoke needs no method; _on_revoke is also called by close(), so its body becomes on_partitions_revoked and _on_revoke stays, calling it."""
        before = """
            from confluent_kafka import Consumer


            class Worker:
                def __init__(self, config):
                    self.consumer = Consumer(config)
                    self.consumer.subscribe(
                        ["orders"],
                        on_assign=self._on_assign,
                        on_revoke=self._on_revoke,
                        on_lost=self._on_revoke,
                    )

                def _on_assign(self, consumer, partitions):
                    print("assigned", partitions)

                def _on_revoke(self, consumer, partitions):
                    consumer.commit(asynchronous=False)

                def close(self):
                    self._on_revoke(self.consumer, self.consumer.assignment())
                    self.consumer.close()
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class Worker(RebalanceListener):
                def __init__(self, config):
                    self.consumer = Consumer(config)
                    subscribe(self.consumer, ["orders"], self)

                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    print("assigned", partitions)

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    consumer.commit(asynchronous=False)

                def _on_revoke(self, consumer, partitions):
                    self.on_partitions_revoked(partitions, consumer)

                def close(self):
                    self._on_revoke(self.consumer, self.consumer.assignment())
                    self.consumer.close()
        """
        self.assertCodemod(before, after, expected_warnings=[])


    def test_bound_methods_of_another_object_of_the_file(self) -> None:
        """on_assign=reporter.on_assign with reporter = Reporter(conf) (REAL_WORLD.md: another object's bound methods; confluent's own kafkatest client does this): Reporter becomes the listener, registered as itself."""
        before = """
            import sys

            from confluent_kafka import Consumer


            class Reporter:
                \"\"\"Reports the assignment of a test client; the driver registers its methods.\"\"\"

                def __init__(self, conf):
                    self.consumer = Consumer(conf)
                    self.assignment = []

                def on_assign(self, consumer, partitions):
                    self.assignment = list(partitions)
                    print("assigned", partitions, file=sys.stderr)

                def on_revoke(self, consumer, partitions):
                    consumer.commit(asynchronous=False)
                    self.assignment = []


            def main(conf, topics):
                reporter = Reporter(conf)
                reporter.consumer.subscribe(topics, on_assign=reporter.on_assign, on_revoke=reporter.on_revoke)
                while reporter.assignment is not None:
                    reporter.consumer.poll(1.0)
        """
        after = """
            import sys

            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class Reporter(RebalanceListener):
                \"\"\"Reports the assignment of a test client; the driver registers its methods.\"\"\"

                def __init__(self, conf):
                    self.consumer = Consumer(conf)
                    self.assignment = []

                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    self.assignment = list(partitions)
                    print("assigned", partitions, file=sys.stderr)

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    consumer.commit(asynchronous=False)
                    self.assignment = []


            def main(conf, topics):
                reporter = Reporter(conf)
                subscribe(reporter.consumer, topics, reporter)
                while reporter.assignment is not None:
                    reporter.consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_static_method_callbacks_gain_self_and_keep_their_wrapped_signature(self) -> None:
        """Application code (an AIOConsumer service): on_assign=self._on_assign where _on_assign is a @staticmethod taking (consumer, partitions). The decorator goes, self comes first, and a signature wrapped over lines keeps its layout; comments above the decorator stay."""
        before = """
            from confluent_kafka import TopicPartition
            from confluent_kafka.aio import AIOConsumer


            class Service:
                def __init__(self, config: dict[str, object]) -> None:
                    self._config = config

                async def run(self) -> None:
                    consumer = AIOConsumer(self._config)
                    await consumer.subscribe(
                        ["orders"],
                        on_assign=self._on_assign,
                        on_revoke=self._on_revoke,
                    )

                # Only logs.
                @staticmethod
                async def _on_assign(
                    _consumer: AIOConsumer, partitions: list[TopicPartition]
                ) -> None:
                    print("assigned", partitions)

                @staticmethod
                async def _on_revoke(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
                    await consumer.commit(asynchronous=False)
        """
        after = """
            from confluent_kafka import TopicPartition
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            class Service(RebalanceListener):
                def __init__(self, config: dict[str, object]) -> None:
                    self._config = config

                async def run(self) -> None:
                    consumer = AIOConsumer(self._config)
                    await subscribe(consumer, ["orders"], self)

                # Only logs.
                async def on_partitions_assigned(
                    self, partitions: list[TopicPartition], _consumer: RebalanceConsumer
                ) -> None:
                    print("assigned", partitions)

                async def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                    await consumer.commit(asynchronous=False)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_wrapped_method_signature_keeps_its_layout(self) -> None:
        """The parameters swap places, each line keeps its commas (black's magic trailing comma)."""
        before = """
            from confluent_kafka import Consumer


            class Worker:
                def __init__(self, config):
                    self.consumer = Consumer(config)
                    self.consumer.subscribe(["orders"], on_revoke=self._on_revoke)

                def _on_revoke(
                    self,
                    consumer: Consumer,
                    partitions: list,
                ) -> None:
                    consumer.commit(asynchronous=False)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class Worker(RebalanceListener):
                def __init__(self, config):
                    self.consumer = Consumer(config)
                    subscribe(self.consumer, ["orders"], self)

                def on_partitions_revoked(
                    self,
                    partitions: list,
                    consumer: RebalanceConsumer,
                ) -> None:
                    consumer.commit(asynchronous=False)
        """
        self.assertCodemod(before, after, expected_warnings=[])


def test_the_subscribing_method_may_be_decorated() -> None:
    """Real code decorates the method that subscribes (``@reinitialize_consumer_on_error``):
    its ``self`` is still the instance. A classmethod's first parameter is not."""
    import textwrap

    from rebalance_codemods.api import migrate_source

    source = textwrap.dedent(
        """
        from confluent_kafka import Consumer

        from app.errors import reinitialize_on_error


        class Ramp:
            def __init__(self, config):
                self.consumer = Consumer(config)

            @reinitialize_on_error
            def consume(self):
                self.consumer.subscribe(["a"], on_assign=self.on_assign)

            @staticmethod
            def on_assign(consumer, partitions):
                print("assigned", partitions)
        """
    )
    result = migrate_source(source.encode(), "ramp.py")
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert "class Ramp(RebalanceListener):" in result.new_source.decode()
    refused = migrate_source(source.replace("@reinitialize_on_error", "@classmethod").encode(), "ramp.py")
    assert refused.new_source is None
    assert any("not a method of the class that makes this call" in m.reason for m in refused.manual), refused.manual


def test_static_methods_named_through_their_class() -> None:
    """``on_revoke=Client.__on_revoke`` (a staticmethod, name-mangled, named through the class
    whose method subscribes) is the same callback as ``self.__on_revoke``; another class's
    static method is not the owner's."""
    import textwrap

    from rebalance_codemods.api import migrate_source

    source = textwrap.dedent(
        """
        from confluent_kafka import Consumer


        class FilterClient:
            def __init__(self, consumer: Consumer, topic: str) -> None:
                self.__consumer = consumer
                self.__consumer.subscribe(
                    [topic],
                    on_assign=self.__on_assign,
                    on_revoke=FilterClient.__on_revoke,
                    on_lost=FilterClient.__on_lost,
                )

            def __on_assign(self, consumer, partitions):
                print("assign", partitions)

            @staticmethod
            def __on_revoke(_, p):
                print("revoke", p)

            @staticmethod
            def __on_lost(_, p):
                print("lost", p)
        """
    )
    result = migrate_source(source.encode(), "client.py")
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "subscribe(self.__consumer, [topic], self)" in after
    assert "    def on_partitions_revoked(self, p, _: RebalanceConsumer):" in after
    assert "    def on_partitions_lost(self, p, _: RebalanceConsumer):" in after
    other = source.replace("on_revoke=FilterClient.__on_revoke", "on_revoke=Other.on_revoke") + (
        "\n\nclass Other:\n    @staticmethod\n    def on_revoke(consumer, partitions):\n        pass\n"
    )
    refused = migrate_source(other.encode(), "client.py")
    assert refused.new_source is None
    assert any("on_revoke= is not a method of the class that makes this call" in m.reason for m in refused.manual), refused.manual


def test_plain_functions_of_the_class_named_through_it() -> None:
    """``on_assign=KafkaBase.print_assignment`` with ``def print_assignment(consumer,
    partitions):`` undecorated in ``KafkaBase``: in Python 3 the class attribute is the plain
    function, called as ``(consumer, partitions)``, so it migrates as a staticmethod does (the
    fixture owner_class_functions.py and its twin show the whole file); named through an
    instance anywhere in the file it would be a bound method, so it stays refused."""
    import textwrap

    from rebalance_codemods.api import migrate_source

    source = textwrap.dedent(
        """
        from confluent_kafka import Consumer


        class Base:
            def consumer(self, conf):
                c = Consumer(conf)
                c.subscribe(["t"], on_assign=Base.assigned, on_revoke=Base.revoked)
                return c

            def assigned(consumer, partitions):
                print("assigned", partitions)

            def revoked(consumer, partitions):
                consumer.commit(asynchronous=False)
        """
    )
    result = migrate_source(source.encode(), "base.py")
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "class Base(RebalanceListener):" in after
    assert "subscribe(c, [\"t\"], self)" in after
    assert "    def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):" in after
    # the same function reached through self somewhere: a bound method there, not this shape
    bound = source + "\n    def again(self, c):\n        self.assigned([])\n"
    refused = migrate_source(bound.encode(), "base.py")
    assert refused.new_source is None
    assert any("is not a method of the class that makes this call" in m.reason for m in refused.manual), refused.manual
