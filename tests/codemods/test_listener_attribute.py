# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener kept in an attribute and registered from it (application code in the GitHub
sample: an aiokafka adapter keeps ``self._assignment = _AssignmentState()`` to read
``self._assignment.rebalancing`` in its loop, and registers ``listener=self._assignment``).

The class migrates and the registration splits as for any other instance, when the attribute
is stored exactly once, as ``self.<attr> = Cls(...)`` in the same class, and nothing in the
file uses ``.<attr>`` other than to read its plain attributes. Otherwise the class stays as
it is (its registration still moves to ``set_rebalance_listener``, which takes legacy listeners
too, as for any refused listener class).
"""

from __future__ import annotations

import textwrap

import pytest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.results import MigrationResult

SOURCE = """
from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class _AssignmentState(ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.rebalancing = True

    def on_partitions_revoked(self, revoked) -> None:
        self.rebalancing = True

    def on_partitions_assigned(self, assigned) -> None:
        self.rebalancing = False


class Adapter:
    def __init__(self, topic: str) -> None:
        self._assignment = _AssignmentState()
        self._consumer = AIOKafkaConsumer(group_id="g")
        self._consumer.subscribe(topics=[topic], listener=self._assignment)

    def ready(self) -> bool:
        {ready}
"""


def _migrate(ready: str = "return not self._assignment.rebalancing", tail: str = "") -> MigrationResult:
    source = textwrap.dedent(SOURCE.format(ready=ready)) + textwrap.dedent(tail)
    result = migrate_source(source.encode(), "adapter.py")
    assert result.status == "ok", result.reason
    return result


def test_a_listener_kept_in_an_attribute_is_migrated_and_registered_from_it() -> None:
    result = _migrate()
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer
        from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


        class _AssignmentState(RebalanceListener):
            def __init__(self) -> None:
                self.rebalancing = True

            def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer) -> None:
                self.rebalancing = True

            def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer) -> None:
                self.rebalancing = False


        class Adapter:
            def __init__(self, topic: str) -> None:
                self._assignment = _AssignmentState()
                self._consumer = AIOKafkaConsumer(group_id="g")
                set_rebalance_listener(self._consumer, self._assignment)
                self._consumer.subscribe(topics=[topic])

            def ready(self) -> bool:
                return not self._assignment.rebalancing
        """
    )


@pytest.mark.parametrize(
    ("ready", "tail", "reason"),
    [
        # its callback called directly: its signature changes
        ("self._assignment.on_partitions_assigned(set())\n        return True", "",
         "on_partitions_assigned is called directly at line 23"),
        # handed on: whoever gets it may call it
        ("return check(self._assignment)", "",
         "the listener self._assignment is used at line 23 beyond its registration"),
        # stored twice: which instance is registered cannot be told
        ("self._assignment = _AssignmentState()\n        return True", "",
         "is not registered with subscribe(listener=...) in this file"),
        # the same attribute name on another class of the file
        ("return True", "\n\nclass Other:\n    def __init__(self):\n        self._assignment = _AssignmentState()\n",
         "is not registered with subscribe(listener=...) in this file"),
    ],
)
def test_any_other_use_of_the_attribute_is_refused(ready: str, tail: str, reason: str) -> None:
    result = _migrate(ready, tail)
    after = (result.new_source or b"").decode()
    assert "(RebalanceListener)" not in after, "the class stays a legacy listener"
    assert any(reason in m.reason for m in result.manual), result.manual


def test_a_listener_kept_in_an_attribute_after_registration_migrates() -> None:
    """A local listener registered, then kept as ``self._rebalance_listener`` (set back to
    None on stop, tested with ``is None``): nothing calls its callbacks, so it migrates."""
    result = migrate_source(
        textwrap.dedent(
            """
            from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


            class _Listener(ConsumerRebalanceListener):
                def __init__(self, sensor):
                    self._sensor = sensor

                async def on_partitions_revoked(self, revoked):
                    self._sensor.drop(revoked)

                async def on_partitions_assigned(self, assigned):
                    pass


            class Sensor:
                def drop(self, partitions):
                    pass

                async def start(self):
                    consumer = AIOKafkaConsumer(group_id="g")
                    listener = _Listener(self)
                    consumer.subscribe(topics=["a"], listener=listener)
                    self._listener = listener
                    await consumer.start()

                def running(self):
                    return self._listener is not None

                async def stop(self):
                    self._listener = None
            """
        ).encode(),
        "sensor.py",
    )
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    assert "class _Listener(RebalanceListener):" in result.new_source.decode()


def test_a_kept_listener_whose_callback_is_called_keeps_its_class() -> None:
    source = textwrap.dedent(
        """
        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


        class _Listener(ConsumerRebalanceListener):
            async def on_partitions_revoked(self, revoked):
                pass

            async def on_partitions_assigned(self, assigned):
                pass


        class Sensor:
            async def start(self):
                consumer = AIOKafkaConsumer(group_id="g")
                listener = _Listener()
                consumer.subscribe(topics=["a"], listener=listener)
                self._listener = listener

            async def replay(self):
                await self._listener.on_partitions_assigned(set())
        """
    )
    result = migrate_source(source.encode(), "sensor.py")
    assert "(RebalanceListener)" not in (result.new_source or b"").decode()
    assert any("on_partitions_assigned is called directly at line 21" in m.reason for m in result.manual), result.manual


def test_a_listener_with_no_callbacks_keeps_the_bases_no_ops() -> None:
    """``class Custom(ConsumerRebalanceListener): pass`` (real code): it becomes a
    RebalanceListener, whose callbacks do nothing, and nothing imports RebalanceConsumer."""
    result = migrate_source(
        textwrap.dedent(
            """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class CustomListener(ConsumerRebalanceListener):
                pass


            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(topics=["a"], listener=CustomListener())
            """
        ).encode(),
        "consumer.py",
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert result.new_source.decode() == textwrap.dedent(
        """
        from kafka import KafkaConsumer
        from rebalance_guard.kafka_python import RebalanceListener, set_rebalance_listener


        class CustomListener(RebalanceListener):
            pass


        consumer = KafkaConsumer(group_id="g")
        set_rebalance_listener(consumer, CustomListener())
        consumer.subscribe(topics=["a"])
        """
    )


def test_the_clients_bare_base_moves_ahead_of_arguments_with_calls() -> None:
    """``listener=ConsumerRebalanceListener()`` runs nothing when created, so registering it
    before ``topics=[os.environ.get(...)]`` is evaluated changes nothing."""
    result = migrate_source(
        textwrap.dedent(
            """
            import os

            from kafka import KafkaConsumer
            from kafka.consumer.subscription_state import ConsumerRebalanceListener

            consumer = KafkaConsumer(group_id="g")
            consumer.subscribe(topics=[os.environ.get("T", "t")], listener=ConsumerRebalanceListener())
            """
        ).encode(),
        "register.py",
    )
    assert not result.manual, result.manual
    assert result.new_source is not None
    assert 'set_rebalance_listener(consumer, ConsumerRebalanceListener())\nconsumer.subscribe(topics=[os.environ.get("T", "t")])' in result.new_source.decode()


def test_an_import_losing_a_name_keeps_the_blank_lines_around_it() -> None:
    """A ``from aiokafka import A, B`` that loses ``B`` is not a removed import: the imports
    after it keep their layout (blank lines were inserted after it and after the next one)."""
    before = textwrap.dedent(
        """
        from __future__ import annotations

        from typing import Any

        from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
        from aiokafka.structs import TopicPartition
        from pydantic import Field

        from app.base import Base


        class L(ConsumerRebalanceListener):
            async def on_partitions_revoked(self, revoked):
                pass

            async def on_partitions_assigned(self, assigned):
                pass


        def make() -> Any:
            c = AIOKafkaConsumer(group_id="g")
            c.subscribe(["a"], listener=L())
        """
    )
    result = migrate_source(before.encode(), "app.py")
    assert result.new_source is not None
    head = result.new_source.decode().split("\n\n\nclass")[0]
    assert head == textwrap.dedent(
        """
        from __future__ import annotations

        from typing import Any

        from aiokafka import AIOKafkaConsumer
        from aiokafka.structs import TopicPartition
        from pydantic import Field

        from app.base import Base
        from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener"""
    )


FACTORY = """
from aiokafka import AIOKafkaConsumer


class Source:
    def __init__(self, topic):
        self._topic = topic
        self._consumer = AIOKafkaConsumer(group_id="g")
        self.revoked = []

    def _listener(self):
        from aiokafka import ConsumerRebalanceListener

        source = self

        class _Listener(ConsumerRebalanceListener):
            async def on_partitions_revoked(self, revoked):
                source.revoked.extend(revoked)

            async def on_partitions_assigned(self, assigned):
                return None

        return _Listener()

    async def start(self):
        await self._consumer.start()
        self._consumer.subscribe([self._topic], listener=self._listener())
{tail}"""


def test_a_listener_made_by_a_factory_method_is_migrated_with_its_registration() -> None:
    """GitHub sample: ``listener=self._listener()`` where ``_listener()`` defines the class
    and ends in ``return _Listener()``, called nowhere else."""
    result = migrate_source(FACTORY.format(tail="").encode(), "sources.py")
    assert not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "        class _Listener(RebalanceListener):" in after
    assert "set_rebalance_listener(self._consumer, self._listener())\n        self._consumer.subscribe([self._topic])" in after


def test_a_factory_called_twice_keeps_the_class() -> None:
    tail = "\n    def spare(self):\n        return self._listener()\n"
    result = migrate_source(FACTORY.format(tail=tail).encode(), "sources.py")
    assert "(RebalanceListener)" not in (result.new_source or b"").decode()
    assert any("is not registered with subscribe(listener=...)" in m.reason for m in result.manual), result.manual
