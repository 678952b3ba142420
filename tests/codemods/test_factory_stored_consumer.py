# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener class registering itself on the consumer its own factory method creates and
returns, stored by its callers as ``self._consumer = self._make_consumer()`` (the
development sample's "registers itself on consumer, which is not an attribute of its own"):
``self._consumer`` is then the registering consumer, as for a wrapper subscribing on
``self._consumer`` itself, and its callbacks' calls on it become the view's
(``shapes/factory_stored_consumer.py``). Where that is not certain, refused as before."""

from __future__ import annotations

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners


class TestFactoryStoredConsumer(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_the_stored_consumer_becomes_the_view_in_the_callbacks(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Worker(ConsumerRebalanceListener):
                def __init__(self, topic):
                    self.topic = topic

                def _make_consumer(self):
                    consumer = KafkaConsumer(group_id="g")
                    consumer.subscribe([self.topic], listener=self)
                    return consumer

                def start(self):
                    self._consumer = self._make_consumer()
                    for message in self._consumer:
                        print(message)

                def on_partitions_revoked(self, revoked):
                    self._consumer.commit()

                def on_partitions_assigned(self, assigned):
                    print(assigned)
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Worker(RebalanceListener):
                def __init__(self, topic):
                    self.topic = topic

                def _make_consumer(self):
                    consumer = KafkaConsumer(group_id="g")
                    set_rebalance_listener(consumer, self)
                    consumer.subscribe([self.topic])
                    return consumer

                def start(self):
                    self._consumer = self._make_consumer()
                    for message in self._consumer:
                        print(message)

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    print(assigned)
        """
        self.assertCodemod(before, after, expected_warnings=[])


SOURCE = """
from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener


class Worker(ConsumerRebalanceListener):
    async def _make_consumer(self):
        consumer = AIOKafkaConsumer()
        consumer.subscribe(["t"], listener=self)
        {returns}

    async def start(self):
        {stores}

    async def on_partitions_revoked(self, revoked):
        await self._consumer.commit()

    async def on_partitions_assigned(self, assigned):
        pass
"""
REFUSED = [
    ("returns something else too", "if not self:\n            return None\n        return consumer",
     "self._consumer = await self._make_consumer()"),
    ("ends without a return", "self._last = consumer",
     "self._consumer = await self._make_consumer()"),
    ("stored in two attributes", "return consumer",
     "self._consumer = await self._make_consumer()\n        self._other = await self._make_consumer()"),
    ("the attribute assigned elsewhere too", "return consumer",
     "self._consumer = await self._make_consumer()\n        self._consumer = AIOKafkaConsumer()"),
    ("the factory used otherwise", "return consumer",
     "self._consumer = await self._make_consumer()\n        helper(self._make_consumer)"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "returns", "stores"), REFUSED, ids=[r[0] for r in REFUSED])
def test_what_is_not_certain_stays_refused(name: str, returns: str, stores: str) -> None:
    source = SOURCE.format(returns=returns, stores=stores)
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok", result
    # the class stays (its registration may still split: set_rebalance_listener takes a
    # legacy listener too)
    assert b"class Worker(ConsumerRebalanceListener):" in (result.new_source or source.encode())
    assert b"await self._consumer.commit()" in (result.new_source or source.encode())
    assert any(
        "it registers itself on consumer, which is not an attribute of its own" in m.reason
        for m in result.manual
    ), result.manual


def test_the_aiokafka_shape_of_the_sample_migrates() -> None:
    source = SOURCE.format(
        returns="return consumer", stores="self._consumer = await self._make_consumer()"
    )
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and not result.manual, result.manual
    assert result.new_source is not None
    after = result.new_source.decode()
    assert "        await consumer.commit()\n" in after
    assert "        set_rebalance_listener(consumer, self)\n" in after
