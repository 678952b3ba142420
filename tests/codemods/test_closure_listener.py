# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener class defined in a function, whose callbacks use that function's consumer
variable (REAL_WORLD.md: "defined inside a method, capturing the consumer in a closure"; in the
GitHub sample an aiokafka worker re-pauses newly assigned partitions with the closure's
``consumer.pause(*assigned)``). Registered on that very variable, its uses become the view.

Before, the class was migrated and kept driving the closure's consumer (KRB201 counted as
fixed, and ``check`` no longer reported it); registered elsewhere, it is refused."""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult


def _migrate(source: str) -> MigrationResult:
    result = migrate_source(textwrap.dedent(source).encode(), "worker.py")
    assert result.status == "ok", result.reason
    return result


WORKER = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


async def run_worker(topic):
    consumer = AIOKafkaConsumer(group_id="g")
    busy = [False]

    class PauseAware(ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked):
            return

        async def on_partitions_assigned(self, assigned):
            if busy[0] and assigned:
                consumer.pause(*assigned)

    {register}
"""


def test_the_closures_consumer_becomes_the_view() -> None:
    result = _migrate(WORKER.format(register="consumer.subscribe(topics=[topic], listener=PauseAware())"))
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer
        from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


        async def run_worker(topic):
            consumer = AIOKafkaConsumer(group_id="g")
            busy = [False]

            class PauseAware(RebalanceListener):
                async def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    return

                async def on_partitions_assigned(self, assigned, rebalance_consumer: RebalanceConsumer):
                    if busy[0] and assigned:
                        rebalance_consumer.pause(*assigned)

            set_rebalance_listener(consumer, PauseAware())
            consumer.subscribe(topics=[topic])
        """
    )


@pytest.mark.parametrize(
    ("register", "why"),
    [
        ("other = AIOKafkaConsumer(group_id='h')\n    other.subscribe(topics=[topic], listener=PauseAware())",
         "an instance is registered on another consumer"),
    ],
)
def test_registered_on_another_consumer_is_refused(register: str, why: str) -> None:
    result = _migrate(WORKER.format(register=register))
    assert "(RebalanceListener)" not in (result.new_source or b"").decode()
    assert any(f"its callbacks use run_worker()'s consumer through a closure and {why}" in m.reason for m in result.manual), result.manual


def test_a_factory_closing_over_its_parameter_given_the_registering_consumer_migrates() -> None:
    """The factory (called only here) is given the very variable the registration is made on,
    so its parameter is the registering consumer (given another consumer, it is refused:
    test_closure_factory.py)."""
    result = _migrate(
        """
        import aiokafka
        from aiokafka import AIOKafkaConsumer


        class Backfill:
            def make_listener(self, consumer):
                class Listener(aiokafka.ConsumerRebalanceListener):
                    async def on_partitions_revoked(self, revoked):
                        await consumer.commit()

                    async def on_partitions_assigned(self, assigned):
                        pass

                return Listener()

            async def run(self):
                consumer = AIOKafkaConsumer(group_id="g")
                consumer.subscribe(["t"], listener=self.make_listener(consumer))
        """
    )
    assert not result.manual, result.manual
    after = (result.new_source or b"").decode()
    assert "class Listener(RebalanceListener):" in after
    assert "await rebalance_consumer.commit()" in after


def test_a_method_other_than_a_callback_using_it_is_refused() -> None:
    source = WORKER.format(register="consumer.subscribe(topics=[topic], listener=PauseAware())").replace(
        "        async def on_partitions_revoked(self, revoked):\n            return\n",
        "        async def on_partitions_revoked(self, revoked):\n            return\n\n        def drain(self):\n            consumer.pause()\n",
    )
    result = _migrate(source)
    assert "(RebalanceListener)" not in (result.new_source or b"").decode()
    assert any("drain() uses the registering consumer consumer too (line 14), which only the callbacks can replace with the view" in m.reason for m in result.manual), result.manual


def test_a_module_global_consumer_becomes_the_view() -> None:
    """REAL_WORLD.md: callbacks using a module-global consumer instead of their own. Migrated
    as they were, they would still call the consumer itself (kafka-python 3: a blocking commit
    on its IO thread raises RuntimeError, KRB105), and ``check`` would no longer say so."""
    result = _migrate(
        """
        from kafka import ConsumerRebalanceListener, KafkaConsumer

        consumer = KafkaConsumer(group_id="g")


        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                consumer.commit()

            def on_partitions_assigned(self, assigned):
                pass


        consumer.subscribe(["a"], listener=Listener())
        """
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "    def on_partitions_revoked(self, revoked, rebalance_consumer: RebalanceConsumer):\n        rebalance_consumer.commit()" in after


def test_a_global_consumer_a_listener_is_not_registered_on_stays() -> None:
    """Another consumer than the registering one is not the view: left alone."""
    result = _migrate(
        """
        from kafka import ConsumerRebalanceListener, KafkaConsumer

        audit = KafkaConsumer(group_id="audit")
        consumer = KafkaConsumer(group_id="g")


        class Listener(ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                print(audit.assignment())

            def on_partitions_assigned(self, assigned):
                pass


        consumer.subscribe(["a"], listener=Listener())
        """
    )
    assert result.new_source is not None
    assert "print(audit.assignment())" in result.new_source.decode()
