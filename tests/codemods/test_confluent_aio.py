# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""confluent-kafka's AIOConsumer (issue 10): async callbacks become an async listener of
rebalance_guard.confluent_kafka_aio, awaited assign becomes awaited seeks (before/after)."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestConfluentAio(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_nested_async_callbacks_become_an_async_listener(self) -> None:
        """Awaited incremental_assign -> awaited seeks; awaited incremental_unassign goes; on_lost=on_revoke is the default."""
        before = """
            import asyncio

            from confluent_kafka import TopicPartition
            from confluent_kafka.aio import AIOConsumer


            async def run(config: dict[str, object], topic: str) -> None:
                processed: dict[int, int] = {}
                consumer = AIOConsumer(config)

                async def on_assign(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
                    committed = await consumer.committed(partitions, timeout=10)
                    for tp, done in zip(partitions, committed):
                        tp.offset = done.offset
                    await consumer.incremental_assign(partitions)

                # Commit what was processed before the partitions move.
                async def on_revoke(consumer: AIOConsumer, partitions: list[TopicPartition]) -> None:
                    offsets = [TopicPartition(topic, p.partition, processed[p.partition] + 1)
                               for p in partitions if p.partition in processed]
                    if offsets:
                        await consumer.commit(offsets=offsets)
                    await consumer.incremental_unassign(partitions)

                await consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
                while True:
                    message = await consumer.poll(1.0)
                    await asyncio.sleep(0)
        """
        after = """
            import asyncio

            from confluent_kafka import TopicPartition
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            async def run(config: dict[str, object], topic: str) -> None:
                processed: dict[int, int] = {}
                consumer = AIOConsumer(config)

                class RebalanceCallbacks(RebalanceListener):
                    async def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        committed = await consumer.committed(partitions, timeout=10)
                        for tp, done in zip(partitions, committed):
                            tp.offset = done.offset
                        for partition in partitions:
                            await consumer.seek(partition)

                    # Commit what was processed before the partitions move.
                    async def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        offsets = [TopicPartition(topic, p.partition, processed[p.partition] + 1)
                                   for p in partitions if p.partition in processed]
                        if offsets:
                            await consumer.commit(offsets=offsets)

                await subscribe(consumer, [topic], RebalanceCallbacks())
                while True:
                    message = await consumer.poll(1.0)
                    await asyncio.sleep(0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_owner_methods_on_an_aioconsumer(self) -> None:
        """self._on_assign on an AIOConsumer the class creates: the owner becomes the async listener."""
        before = """
            from confluent_kafka.aio import AIOConsumer


            class Service:
                def __init__(self, config):
                    self.consumer = AIOConsumer(config)

                async def start(self, topics):
                    await self.consumer.subscribe(topics, on_assign=self._on_assign, on_revoke=self._on_revoke)

                async def _on_assign(self, consumer, partitions):
                    await consumer.assign(partitions)

                async def _on_revoke(self, consumer, partitions):
                    await consumer.commit()
                    await consumer.unassign()
        """
        after = """
            from confluent_kafka.aio import AIOConsumer
            from rebalance_guard.confluent_kafka_aio import RebalanceConsumer, RebalanceListener, subscribe


            class Service(RebalanceListener):
                def __init__(self, config):
                    self.consumer = AIOConsumer(config)

                async def start(self, topics):
                    await subscribe(self.consumer, topics, self)

                async def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    for partition in partitions:
                        await consumer.seek(partition)

                async def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    await consumer.commit()
        """
        self.assertCodemod(before, after, expected_warnings=[])
