# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""kafka-python: what KRB201-KRB203 find becomes rebalance_guard code (before/after)."""

from __future__ import annotations

import textwrap

from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateKafkaPython, MigrateRebalanceListeners


class TestKafkaPython(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_injected_consumer_becomes_the_view(self) -> None:
        before = """
            import kafka


            class Listener(kafka.ConsumerRebalanceListener):
                def __init__(self, consumer, store):
                    self.consumer = consumer
                    self.store = store

                def on_partitions_revoked(self, revoked):
                    self.consumer.commit()  # land before the move

                def on_partitions_assigned(self, assigned):
                    for tp in assigned:
                        self.consumer.seek(tp, self.store[tp])


            consumer = kafka.KafkaConsumer(group_id="g")
            # register and go
            consumer.subscribe(
                ["orders"],
                listener=Listener(consumer, {}),
            )
        """
        after = """
            import kafka
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):
                def __init__(self, store):
                    self.store = store

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()  # land before the move

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    for tp in assigned:
                        consumer.seek(tp, self.store[tp])


            consumer = kafka.KafkaConsumer(group_id="g")
            # register and go
            set_rebalance_listener(consumer, Listener({}))
            consumer.subscribe(
                ["orders"],
            )
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_constructor_left_empty_goes_away_and_keyword_argument_is_dropped(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Listener(ConsumerRebalanceListener):
                def __init__(self, consumer: KafkaConsumer) -> None:
                    self.consumer = consumer

                def on_partitions_revoked(self, revoked: set) -> None:
                    self.consumer.commit()

                def on_partitions_assigned(self, assigned: set) -> None:
                    pass


            def main() -> None:
                consumer = KafkaConsumer(group_id="g")
                listener = Listener(consumer=consumer)
                consumer.subscribe(["a"], listener=listener)
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):

                def on_partitions_revoked(self, revoked: set, consumer: RebalanceConsumer) -> None:
                    consumer.commit()

                def on_partitions_assigned(self, assigned: set, consumer: RebalanceConsumer) -> None:
                    pass


            def main() -> None:
                consumer = KafkaConsumer(group_id="g")
                listener = Listener()
                set_rebalance_listener(consumer, listener)
                consumer.subscribe(["a"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_consumer_used_only_outside_the_callbacks_is_kept_silently(self) -> None:
        """``lag()`` is no callback and nothing in the class calls it (the poll loop does):
        the consumer stays for it, the callbacks use the view, and nothing is left to do by
        hand (KRB201 is fixed; test_a_consumer_a_callback_may_reach_stays_reported below)."""
        before = """
            from kafka import KafkaConsumer
            from kafka.consumer.subscription_state import ConsumerRebalanceListener as CRL


            class Listener(CRL):
                def __init__(self, consumer):
                    self.consumer = consumer

                def on_partitions_revoked(self, revoked):
                    self.consumer.commit()

                def on_partitions_assigned(self, assigned):
                    pass

                def lag(self):
                    return self.consumer.metrics()


            def main():
                consumer = KafkaConsumer(group_id="g")
                consumer.subscribe(["a"], None, Listener(consumer))
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):
                def __init__(self, consumer):
                    self.consumer = consumer

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass

                def lag(self):
                    return self.consumer.metrics()


            def main():
                consumer = KafkaConsumer(group_id="g")
                set_rebalance_listener(consumer, Listener(consumer))
                consumer.subscribe(["a"], None)
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_consumer_a_callback_may_reach_stays_reported(self) -> None:
        """``lag()`` is named in the class (a callback may call it through another method),
        or a callback hands on its ``self``: the kept consumer may be used during a
        rebalance, so the note stays."""
        for extra, callback in (
            ("return self.lag()", "pass"),
            ("pass", "report(self)"),
        ):
            before = f"""
            from kafka import KafkaConsumer
            from kafka.consumer.subscription_state import ConsumerRebalanceListener as CRL


            class Listener(CRL):
                def __init__(self, consumer):
                    self.consumer = consumer

                def on_partitions_revoked(self, revoked):
                    self.consumer.commit()

                def on_partitions_assigned(self, assigned):
                    {callback}

                def lag(self):
                    return self.consumer.metrics()

                def other(self):
                    {extra}


            def main():
                consumer = KafkaConsumer(group_id="g")
                consumer.subscribe(["a"], listener=Listener(consumer))
            """
            result = migrate_source(textwrap.dedent(before).encode(), "app.py")
            assert result.status == "ok", result
            reasons = [m.reason for m in result.manual]
            assert reasons == [
                "the consumer injected into Listener() is also used at line 17; kept "
                "(the callbacks now use the view), remove it by hand"
            ], reasons

    def test_listener_from_another_module_is_registered_with_set_rebalance_listener(self) -> None:
        before = """
            from kafka import KafkaConsumer
            from listeners import Listener

            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["a"], listener=Listener())  # registered elsewhere
        """
        after = """
            from kafka import KafkaConsumer
            from listeners import Listener
            from rebalance_guard.kafka_python import set_rebalance_listener

            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Listener())
            consumer.subscribe(["a"])  # registered elsewhere
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_view_gets_a_fresh_name_when_consumer_is_taken(self) -> None:
        before = """
            from kafka import KafkaConsumer, ConsumerRebalanceListener


            class Listener(ConsumerRebalanceListener):
                def on_partitions_revoked(self, revoked):
                    print("revoked", revoked)

                def on_partitions_assigned(self, consumer):
                    print("assigned", consumer)


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(["a"], listener=Listener())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):
                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    print("revoked", revoked)

                def on_partitions_assigned(self, consumer, rebalance_consumer: RebalanceConsumer):
                    print("assigned", consumer)


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Listener())
            consumer.subscribe(["a"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_already_migrated_code_is_left_alone(self) -> None:
        code = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Listener(RebalanceListener):
                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()


            consumer = KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, Listener())
            consumer.subscribe(["a"])
        """
        self.assertCodemod(code, code, expected_warnings=[])


class TestKafkaPythonCommandOnly(CodemodTest):
    TRANSFORM = MigrateKafkaPython

    def test_leaves_other_clients_alone(self) -> None:
        code = """
            from aiokafka import AIOKafkaConsumer

            consumer = AIOKafkaConsumer()
            consumer.subscribe(["a"], listener=make())
        """
        self.assertCodemod(code, code, expected_warnings=[])


class TestTwoClientsInOneFile(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_each_client_gets_its_own_set_rebalance_listener(self) -> None:
        before = """
            import kafka
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener

            consumer = kafka.KafkaConsumer(group_id="g")
            consumer.subscribe(["t"], listener=kafka.ConsumerRebalanceListener())

            aio = AIOKafkaConsumer(group_id="g")
            aio.subscribe(["t"], listener=ConsumerRebalanceListener())
        """
        after = """
            import kafka
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener
            from rebalance_guard.aiokafka import set_rebalance_listener as guard_set_rebalance_listener
            from rebalance_guard.kafka_python import set_rebalance_listener

            consumer = kafka.KafkaConsumer(group_id="g")
            set_rebalance_listener(consumer, kafka.ConsumerRebalanceListener())
            consumer.subscribe(["t"])

            aio = AIOKafkaConsumer(group_id="g")
            guard_set_rebalance_listener(aio, ConsumerRebalanceListener())
            aio.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])
