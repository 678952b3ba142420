# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener that hands its callbacks on to another listener (REAL_WORLD.md: wrappers and
frameworks forwarding to the user's ``rebalance_listener``; ``self.inner.on_partitions_*``;
held_out_6 002: a handler chaining to a seek handler and to a user-supplied class) migrates:
the call becomes rebalance_guard's ``chain_callback(other, "on_partitions_*", partitions,
view)``, which passes the view only where the other listener is a migrated one whose method
takes it, and the partitions alone otherwise, as before. The class the call is made on may be
the migrated class itself (then it gets the view), so this needs no proof of what it is."""

from __future__ import annotations

import textwrap

from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners

#: The refusals this shape gives (tests/codemods/test_refusals.py checks each is exercised).
REASONS = [
    "listener class SeekHandler: on_partitions_assigned is called directly at line 22, with "
    "one argument, by Handler.on_partitions_assigned(), whose migration hands it the "
    "partitions alone (through chain_callback) while this class is not migrated, as before; "
    "the class can stay a client listener, or take the view once every call of its "
    "callbacks passes one (pass it by hand)",
]


class ChainedListenerTest(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_an_aiokafka_wrapper_awaiting_its_inner_listener(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener


            class Chained(ConsumerRebalanceListener):
                def __init__(self, inner):
                    self.inner = inner

                async def on_partitions_revoked(self, revoked):
                    print("revoked", revoked)
                    await self.inner.on_partitions_revoked(revoked)

                async def on_partitions_assigned(self, assigned):
                    await self.inner.on_partitions_assigned(assigned)


            async def run(inner):
                consumer = AIOKafkaConsumer(group_id="g")
                consumer.subscribe(["t"], listener=Chained(inner))
                await consumer.start()
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard import chain_callback
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Chained(RebalanceListener):
                def __init__(self, inner):
                    self.inner = inner

                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    print("revoked", revoked)
                    await chain_callback(self.inner, "on_partitions_revoked", revoked, consumer)

                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    await chain_callback(self.inner, "on_partitions_assigned", assigned, consumer)


            async def run(inner):
                consumer = AIOKafkaConsumer(group_id="g")
                set_rebalance_listener(consumer, Chained(inner))
                consumer.subscribe(["t"])
                await consumer.start()
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_handler_chaining_to_classes_it_creates_and_one_it_was_given(self) -> None:
        """held_out_6 002's shape: the seek handler calls its base through super() (its own
        plan's business: that call never reaches the registered handler), and is created in
        the registered handler's callbacks without being registered itself, so it stays a
        client listener, called with the partitions alone."""
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            def connect(topic, custom=None):
                consumer = KafkaConsumer(group_id="g")

                class SeekHandler(ConsumerRebalanceListener):
                    def on_partitions_assigned(self, assigned):
                        for tp in assigned:
                            consumer.seek_to_beginning(tp)

                    def on_partitions_revoked(self, revoked):
                        return super().on_partitions_revoked(revoked)

                class Handler(ConsumerRebalanceListener):
                    def on_partitions_revoked(self, revoked):
                        SeekHandler().on_partitions_revoked(revoked)
                        if custom:
                            custom().on_partitions_revoked(revoked)

                    def on_partitions_assigned(self, assigned):
                        SeekHandler().on_partitions_assigned(assigned)

                consumer.subscribe([topic], listener=Handler())
                return consumer
        """
        after = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer
            from rebalance_guard import chain_callback
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            def connect(topic, custom=None):
                consumer = KafkaConsumer(group_id="g")

                class SeekHandler(ConsumerRebalanceListener):
                    def on_partitions_assigned(self, assigned):
                        for tp in assigned:
                            consumer.seek_to_beginning(tp)

                    def on_partitions_revoked(self, revoked):
                        return super().on_partitions_revoked(revoked)

                class Handler(RebalanceListener):
                    def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                        chain_callback(SeekHandler(), "on_partitions_revoked", revoked, consumer)
                        if custom:
                            chain_callback(custom(), "on_partitions_revoked", revoked, consumer)

                    def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                        chain_callback(SeekHandler(), "on_partitions_assigned", assigned, consumer)

                set_rebalance_listener(consumer, Handler())
                consumer.subscribe([topic])
                return consumer
        """
        self.assertCodemod(before, after, expected_warnings=[f"7: manual: {REASONS[0]}"])


def test_a_super_call_of_a_class_with_another_base_still_refuses_the_listener() -> None:
    """``super()`` in a class of the file that derives from another class of the file may
    reach the registered listener's methods (here it does: Child derives from Listener), so
    the old-arity call still refuses the class."""
    source = """
        from kafka import ConsumerRebalanceListener, KafkaConsumer


        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                print(revoked)

            def on_partitions_assigned(self, assigned):
                print(assigned)


        class Child(Listener):
            def flush(self, revoked):
                super().on_partitions_revoked(revoked)


        consumer = KafkaConsumer(group_id="g")
        consumer.subscribe(["t"], listener=Listener())
    """
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    reasons = [m.reason for m in result.manual]
    assert any(
        r.startswith("listener class Listener: on_partitions_revoked is called directly at line 15")
        for r in reasons
    ), reasons
