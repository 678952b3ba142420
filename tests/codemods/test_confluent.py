# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""confluent-kafka: callbacks become a listener registered via rebalance_guard (before/after)."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.commands import MigrateConfluent, MigrateRebalanceListeners


class TestConfluent(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_closures_with_explicit_offsets_become_a_local_listener_class(self) -> None:
        before = """
            from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition


            def run(config: dict[str, object], topic: str) -> None:
                processed: dict[int, int] = {}
                consumer = Consumer(config)

                # Start where the group committed, or at the beginning.
                def on_assign(consumer: Consumer, partitions: list[TopicPartition]) -> None:
                    \"\"\"Explicit offsets.\"\"\"
                    for tp, done in zip(partitions, consumer.committed(partitions)):
                        tp.offset = done.offset if done.offset >= 0 else OFFSET_BEGINNING
                    consumer.assign(partitions)

                def on_revoke(consumer: Consumer, partitions: list[TopicPartition]) -> None:
                    offsets = [TopicPartition(topic, p.partition, processed[p.partition] + 1)
                               for p in partitions if p.partition in processed]
                    if offsets:
                        consumer.commit(offsets=offsets, asynchronous=False)  # before moving
                    consumer.unassign()

                consumer.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
                while True:
                    consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def run(config: dict[str, object], topic: str) -> None:
                processed: dict[int, int] = {}
                consumer = Consumer(config)

                class RebalanceCallbacks(RebalanceListener):
                    # Start where the group committed, or at the beginning.
                    def on_partitions_assigned(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        \"\"\"Explicit offsets.\"\"\"
                        for tp, done in zip(partitions, consumer.committed(partitions)):
                            tp.offset = done.offset if done.offset >= 0 else OFFSET_BEGINNING
                        for partition in partitions:
                            consumer.seek(partition)

                    def on_partitions_revoked(self, partitions: list[TopicPartition], consumer: RebalanceConsumer) -> None:
                        offsets = [TopicPartition(topic, p.partition, processed[p.partition] + 1)
                                   for p in partitions if p.partition in processed]
                        if offsets:
                            consumer.commit(offsets=offsets, asynchronous=False)  # before moving

                subscribe(consumer, [topic], RebalanceCallbacks())
                while True:
                    consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_module_functions_incremental_calls_and_a_shadowed_name(self) -> None:
        before = """
            import confluent_kafka


            def on_assign(c, parts):
                c.incremental_assign(parts)


            def on_lost(c, parts):
                c.incremental_unassign(parts)


            def main():
                c = confluent_kafka.Consumer({})
                c.subscribe(topics=["a"], on_assign=on_assign, on_lost=on_lost)
                subscribe = 1
        """
        after = """
            import confluent_kafka
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe as guard_subscribe


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, parts, c: RebalanceConsumer):
                    for partition in parts:
                        c.seek(partition)

                def on_partitions_lost(self, parts, c: RebalanceConsumer):
                    pass


            def main():
                c = confluent_kafka.Consumer({})
                guard_subscribe(c, ["a"], RebalanceCallbacks())
                subscribe = 1
        """
        self.assertCodemod(before, after, expected_warnings=[])


class TestConfluentTailPosition(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_conditional_final_assign_and_revoke_reused_for_lost(self) -> None:
        before = """
            from confluent_kafka import OFFSET_BEGINNING, Consumer

            REPLAY = False


            def on_assign(consumer, partitions):
                if REPLAY:
                    for p in partitions:
                        p.offset = OFFSET_BEGINNING
                    consumer.assign(partitions)


            def on_revoke(consumer, partitions):
                consumer.commit()
                if partitions:
                    consumer.unassign()  # hand them back


            def main() -> None:
                consumer = Consumer({"group.id": "g"})
                consumer.subscribe(["clicks"], on_assign=on_assign, on_revoke=on_revoke, on_lost=on_revoke)
        """
        after = """
            from confluent_kafka import OFFSET_BEGINNING, Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe

            REPLAY = False


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    if REPLAY:
                        for p in partitions:
                            p.offset = OFFSET_BEGINNING
                        for partition in partitions:
                            consumer.seek(partition)

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    consumer.commit()
                    if partitions:
                        # hand them back
                        pass


            def main() -> None:
                consumer = Consumer({"group.id": "g"})
                subscribe(consumer, ["clicks"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])


class TestConfluentCommandOnly(CodemodTest):
    TRANSFORM = MigrateConfluent

    def test_leaves_kafka_python_alone(self) -> None:
        code = """
            from kafka import KafkaConsumer

            consumer = KafkaConsumer()
            consumer.subscribe(["a"], listener=make())
        """
        self.assertCodemod(code, code, expected_warnings=[])
