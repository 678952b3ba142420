# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""One callback registered for two roles (REAL_WORLD.md: a nested ``on_rebalance(consumer,
partitions)`` passed as both ``on_assign=`` and ``on_revoke=``) becomes one listener method
under two names: ``on_partitions_revoked = on_partitions_assigned``. confluent calls the
revoke callback for lost partitions when no ``on_lost=`` is given, and the listener's default
``on_partitions_lost`` calls the revoked one, so a loss still reaches it."""

from __future__ import annotations

from libcst.codemod import CodemodTest
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestTwoRoles(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_nested_callback_for_assign_and_revoke(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def run(config, topic):
                consumer = Consumer(config)

                def on_rebalance(consumer, partitions):
                    print("rebalance", partitions, consumer.assignment())

                consumer.subscribe([topic], on_assign=on_rebalance, on_revoke=on_rebalance)
                while True:
                    consumer.poll(1.0)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            def run(config, topic):
                consumer = Consumer(config)

                class RebalanceCallbacks(RebalanceListener):
                    def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                        print("rebalance", partitions, consumer.assignment())

                    on_partitions_revoked = on_partitions_assigned

                subscribe(consumer, [topic], RebalanceCallbacks())
                while True:
                    consumer.poll(1.0)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_three_roles_and_another_callback(self) -> None:
        before = """
            from confluent_kafka import Consumer


            def log_partitions(consumer, partitions):
                print(len(partitions))


            def commit_first(consumer, partitions):
                consumer.commit(asynchronous=False)


            c = Consumer({})
            c.subscribe(["a"], on_assign=log_partitions, on_revoke=commit_first, on_lost=log_partitions)
        """
        after = """
            from confluent_kafka import Consumer
            from rebalance_guard.confluent_kafka import RebalanceConsumer, RebalanceListener, subscribe


            class RebalanceCallbacks(RebalanceListener):
                def on_partitions_assigned(self, partitions, consumer: RebalanceConsumer):
                    print(len(partitions))

                def on_partitions_revoked(self, partitions, consumer: RebalanceConsumer):
                    consumer.commit(asynchronous=False)

                on_partitions_lost = on_partitions_assigned


            c = Consumer({})
            subscribe(c, ["a"], RebalanceCallbacks())
        """
        self.assertCodemod(before, after, expected_warnings=[])
