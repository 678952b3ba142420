# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener class's ``# type: ignore[misc]`` for subclassing the client's untyped base goes
with that base (shapes.untyped_base_ignores): left behind on rebalance_guard's typed
``RebalanceListener`` it is mypy --strict's unused-ignore error. Only exactly that comment, on
a one-line header of a class with that one base; anything else stays as written.
The fixture's migration adding no mypy or pyright error is test_migrated_type_checks'."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.commands import MigrateRebalanceListeners

_BEFORE = """
    from kafka import ConsumerRebalanceListener, KafkaConsumer


    class Logger(ConsumerRebalanceListener):{comment}
        def on_partitions_revoked(self, revoked):
            print("revoked", revoked)

        def on_partitions_assigned(self, assigned):
            print("assigned", assigned)


    consumer = KafkaConsumer(group_id="g")
    consumer.subscribe(["t"], listener=Logger())
"""

_AFTER = """
    from kafka import KafkaConsumer
    from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


    class Logger(RebalanceListener):{comment}
        def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
            print("revoked", revoked)

        def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
            print("assigned", assigned)


    consumer = KafkaConsumer(group_id="g")
    set_rebalance_listener(consumer, Logger())
    consumer.subscribe(["t"])
"""


class UntypedBaseIgnoresTest(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_the_any_base_ignore_goes_with_the_base(self) -> None:
        for comment in ("  # type: ignore[misc]", "  #type:ignore[misc]", " # type: ignore[misc]  "):
            with self.subTest(comment=comment):
                self.assertCodemod(
                    _BEFORE.format(comment=comment), _AFTER.format(comment="")
                )

    def test_any_other_comment_stays(self) -> None:
        for comment in (
            "  # type: ignore",  # a blanket ignore may cover more than the base
            "  # type: ignore[misc, override]",
            "  # type: ignore[misc]  # noqa: N801",
            "  # listener for the logs",
            "  # pyright: ignore[reportUntypedBaseClass]",
        ):
            with self.subTest(comment=comment):
                self.assertCodemod(
                    _BEFORE.format(comment=comment), _AFTER.format(comment=comment)
                )

    def test_a_header_over_several_lines_keeps_its_comments(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Logger(
                ConsumerRebalanceListener,
            ):  # type: ignore[misc]
                def on_partitions_assigned(self, assigned):
                    print("assigned", assigned)


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Logger())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Logger(
                RebalanceListener,
            ):  # type: ignore[misc]
                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    print("assigned", assigned)


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Logger())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after)

    def test_a_class_with_other_bases_keeps_it(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Mixin:
                pass


            class Logger(Mixin, ConsumerRebalanceListener):  # type: ignore[misc]
                def on_partitions_assigned(self, assigned):
                    print("assigned", assigned)


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=Logger())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Mixin:
                pass


            class Logger(Mixin, RebalanceListener):  # type: ignore[misc]
                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    print("assigned", assigned)


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Logger())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after)

    def test_an_aiokafka_listener_drops_it_too(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener


            class Logger(ConsumerRebalanceListener):  # type: ignore[misc]
                async def on_partitions_revoked(self, revoked):
                    print("revoked", revoked)

                async def on_partitions_assigned(self, assigned):
                    print("assigned", assigned)


            async def run():
                consumer = AIOKafkaConsumer(group_id="g")
                consumer.subscribe(["t"], listener=Logger())
                await consumer.start()
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Logger(RebalanceListener):
                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    print("revoked", revoked)

                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    print("assigned", assigned)


            async def run():
                consumer = AIOKafkaConsumer(group_id="g")
                set_rebalance_listener(consumer, Logger())
                consumer.subscribe(["t"])
                await consumer.start()
        """
        self.assertCodemod(before, after)
