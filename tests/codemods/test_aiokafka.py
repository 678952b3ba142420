# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""aiokafka: async callbacks stay async; the docs' own listener shape migrates (before/after)."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.commands import MigrateAiokafka, MigrateRebalanceListeners


class TestAiokafka(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_docs_listener_named_like_the_base_gets_an_aliased_import(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


            class RebalanceListener(ConsumerRebalanceListener):
                def __init__(self, consumer, local_state):
                    self.consumer = consumer
                    self.state = local_state

                async def on_partitions_revoked(self, revoked):
                    self.state.dump_local_offsets()

                async def on_partitions_assigned(self, assigned):
                    for tp in assigned:
                        last_offset = self.state.get_last_offset(tp)
                        if last_offset < 0:
                            await self.consumer.seek_to_beginning(tp)
                        else:
                            self.consumer.seek(tp, last_offset + 1)


            async def main(local_state):
                consumer = AIOKafkaConsumer(group_id="g")
                listener = RebalanceListener(consumer, local_state)
                consumer.subscribe(topics=["test"], listener=listener)
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener as GuardRebalanceListener, set_rebalance_listener


            class RebalanceListener(GuardRebalanceListener):
                def __init__(self, local_state):
                    self.state = local_state

                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    self.state.dump_local_offsets()

                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    for tp in assigned:
                        last_offset = self.state.get_last_offset(tp)
                        if last_offset < 0:
                            await consumer.seek_to_beginning(tp)
                        else:
                            consumer.seek(tp, last_offset + 1)


            async def main(local_state):
                consumer = AIOKafkaConsumer(group_id="g")
                listener = RebalanceListener(local_state)
                set_rebalance_listener(consumer, listener)
                consumer.subscribe(topics=["test"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_abc_base_and_an_existing_registration(self) -> None:
        before = """
            import aiokafka.abc
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import set_rebalance_listener


            class Committer(aiokafka.abc.ConsumerRebalanceListener):
                def __init__(self, consumer):
                    self.consumer = consumer

                async def on_partitions_revoked(self, revoked):
                    await self.consumer.commit()

                def on_partitions_assigned(self, assigned):
                    pass


            consumer = AIOKafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Committer(consumer))
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Committer(RebalanceListener):

                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    await consumer.commit()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass


            consumer = AIOKafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Committer())
        """
        self.assertCodemod(before, after, expected_warnings=[])


class TestAiokafkaCommandOnly(CodemodTest):
    TRANSFORM = MigrateAiokafka

    def test_leaves_kafka_python_alone(self) -> None:
        code = """
            from kafka import KafkaConsumer

            consumer = KafkaConsumer()
            consumer.subscribe(["a"], listener=make())
        """
        self.assertCodemod(code, code, expected_warnings=[])
