# ruff: noqa: E501  (the "after" strings are the codemod's exact output; LibCST does not wrap)
"""A listener's callback calling another of its own callbacks through ``self`` (issue 25:
direct calls with the old arity; kafka-python 3 listeners whose ``on_partitions_lost`` runs
their revocation): the view is in scope there, so the call passes it along; a wrapper that is
its own listener on ``self._consumer`` calling its callback from another method passes that
consumer. Direct calls anywhere else stay refused (``shapes/direct_callback_calls.py``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from libcst.codemod import CodemodTest
from rebalance_codemods.api import migrate_source
from rebalance_codemods.commands import MigrateRebalanceListeners

from tests.codemods.type_check_diff import added, mypy_errors, pyright_errors


class TestDirectCallbackCalls(CodemodTest):
    TRANSFORM = MigrateRebalanceListeners

    def test_a_lost_callback_running_the_revocation_passes_the_view(self) -> None:
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Flush(ConsumerRebalanceListener):
                def on_partitions_revoked(self, revoked):
                    print("flush", revoked)

                def on_partitions_assigned(self, assigned):
                    pass

                def on_partitions_lost(self, lost):
                    self.on_partitions_revoked(lost)


            consumer = KafkaConsumer()
            consumer.subscribe(["t"], listener=Flush())
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Flush(RebalanceListener):
                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    print("flush", revoked)

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass

                def on_partitions_lost(self, lost, consumer: RebalanceConsumer):
                    self.on_partitions_revoked(lost, consumer=consumer)


            consumer = KafkaConsumer()
            set_rebalance_listener(consumer, Flush())
            consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_the_view_goes_by_the_called_methods_parameter_name(self) -> None:
        before = """
            from aiokafka import AIOKafkaConsumer
            from aiokafka.abc import ConsumerRebalanceListener


            class Reset(ConsumerRebalanceListener):
                async def on_partitions_revoked(self, revoked):
                    consumer = len(revoked)
                    print(consumer)

                async def on_partitions_assigned(self, assigned):
                    await self.on_partitions_revoked(assigned)


            async def main():
                consumer = AIOKafkaConsumer()
                consumer.subscribe(["t"], listener=Reset())
        """
        after = """
            from aiokafka import AIOKafkaConsumer
            from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Reset(RebalanceListener):
                async def on_partitions_revoked(self, revoked, rebalance_consumer: RebalanceConsumer):
                    consumer = len(revoked)
                    print(consumer)

                async def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    await self.on_partitions_revoked(assigned, rebalance_consumer=consumer)


            async def main():
                consumer = AIOKafkaConsumer()
                set_rebalance_listener(consumer, Reset())
                consumer.subscribe(["t"])
        """
        self.assertCodemod(before, after, expected_warnings=[])

    def test_a_wrapper_running_its_own_callback_passes_its_own_consumer(self) -> None:
        """REAL_WORLD.md's ``self.on_partitions_revoked(...)`` in a wrapper that is its own
        listener on ``self._consumer``: no view there, but the callback's ``self._consumer``
        became its consumer parameter, so passing ``self._consumer`` runs what it ran."""
        before = """
            from kafka import ConsumerRebalanceListener, KafkaConsumer


            class Wrapper(ConsumerRebalanceListener):
                def __init__(self, topics):
                    self._consumer = KafkaConsumer(group_id="g")
                    self._consumer.subscribe(topics, listener=self)

                def close(self):
                    self.on_partitions_revoked(self._consumer.assignment())
                    self._consumer.close()

                def on_partitions_revoked(self, revoked):
                    self._consumer.commit()

                def on_partitions_assigned(self, assigned):
                    pass
        """
        after = """
            from kafka import KafkaConsumer
            from rebalance_guard.kafka_python import RebalanceConsumer, RebalanceListener, set_rebalance_listener


            class Wrapper(RebalanceListener):
                def __init__(self, topics):
                    self._consumer = KafkaConsumer(group_id="g")
                    set_rebalance_listener(self._consumer, self)
                    self._consumer.subscribe(topics)

                def close(self):
                    self.on_partitions_revoked(self._consumer.assignment(), consumer=self._consumer)
                    self._consumer.close()

                def on_partitions_revoked(self, revoked, consumer: RebalanceConsumer):
                    consumer.commit()

                def on_partitions_assigned(self, assigned, consumer: RebalanceConsumer):
                    pass
        """
        self.assertCodemod(before, after, expected_warnings=[])


HEAD = "from kafka import ConsumerRebalanceListener, KafkaConsumer\n\n"
BODY = (
    "class L(ConsumerRebalanceListener):\n"
    "    def on_partitions_revoked(self, revoked):\n        pass\n\n"
    "    def on_partitions_assigned(self, assigned):\n        {call}\n\n"
    "    def reset(self):\n        {other}\n\n"
    "c = KafkaConsumer()\nc.subscribe(['t'], listener=L())\n"
)
REFUSED = [
    ("from a method that is no callback (no view there)", "pass", "self.on_partitions_revoked([])"),
    ("from a nested function (it may run after the view expired)",
     "(lambda: self.on_partitions_revoked(assigned))()", "pass"),
    ("on another object from a method that is no callback", "pass", "other.on_partitions_revoked([])"),
    ("on another object in a nested function", "(lambda: other.on_partitions_revoked(assigned))()", "pass"),
    ("on another object with a keyword", "other.on_partitions_revoked(revoked=assigned)", "pass"),
    ("on another object with *args", "other.on_partitions_revoked(*assigned)", "pass"),
    ("with a keyword", "self.on_partitions_revoked(revoked=assigned)", "pass"),
    ("the base's through super() from a method that is no callback", "pass", "super().on_partitions_revoked([])"),
    ("the base's through super() naming the class (not proven)", "super(L, self).on_partitions_assigned(assigned)", "pass"),
    ("the base's through super() in a nested function", "(lambda: super(L, self).on_partitions_assigned(assigned))()", "pass"),
    ("the base's through super() with a keyword", "super().on_partitions_assigned(assigned=assigned)", "pass"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "call", "other"), REFUSED, ids=[c[0] for c in REFUSED])
def test_other_direct_calls_stay_refused(name: str, call: str, other: str) -> None:
    source = HEAD + BODY.format(call=call, other=other)
    result = migrate_source(textwrap.dedent(source).encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert any("is called directly at line" in m.reason for m in result.manual), result.manual


KEPT = """
import asyncio

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener


class Processor(ConsumerRebalanceListener):
    def __init__(self, db, consumer: AIOKafkaConsumer) -> None:
        {store}
        self.owned = set()

    async def write(self, offsets) -> None:
        await self.consumer.commit(offsets)

    async def run(self, stopping: asyncio.Event) -> None:
        while not stopping.is_set():
            await asyncio.sleep(0.1)
        await self.on_partitions_revoked(set(self.owned))

    async def on_partitions_assigned(self, assigned) -> None:
        self.owned = set(assigned)

    async def on_partitions_revoked(self, revoked) -> None:
        self.owned -= revoked
        await self.consumer.commit()
{tail}

async def serve(db) -> None:
    kafka = AIOKafkaConsumer(group_id="g")
    processor = Processor(db, kafka)
    kafka.subscribe(["t"], listener=processor)
    await processor.run(asyncio.Event())
"""
PLAIN = "self.db = db\n        self.consumer = consumer"
TUPLE = "self.db, self.consumer = db, consumer"


@pytest.mark.parametrize(
    ("store", "kept"),
    [
        (PLAIN, None),  # kept for the processor's own commits and polling: nothing to do by hand
        (TUPLE, "the consumer injected into Processor() is stored with other values at line 9; kept (the callbacks now use the view), remove it by hand"),
    ],
    ids=["plain", "tuple"],
)
def test_a_kept_injected_consumer_is_passed_by_a_call_outside_the_callbacks(store: str, kept: str | None) -> None:
    """The processor shape of an aiokafka service: the listener is handed the consumer it is
    registered on, keeps it for its own polling and commits, and flushes on shutdown by
    calling its revocation callback itself. The kept attribute is provably the registering
    consumer (the same variable at the one creation and the registration, never rebound), so
    the shutdown call passes it: the callback then does exactly what it did."""
    source = textwrap.dedent(KEPT.format(store=store, tail=""))
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is not None, result
    after = result.new_source.decode()
    assert "        await self.on_partitions_revoked(set(self.owned), consumer=self.consumer)\n" in after
    assert "        self.owned -= revoked\n        await consumer.commit()\n" in after
    assert "        await self.consumer.commit(offsets)\n" in after  # outside the callbacks: kept
    assert [m.reason for m in result.manual] == ([kept] if kept else [])
    assert migrate_source(result.new_source, "app.py").new_source is None  # idempotent


@pytest.mark.parametrize(
    "tail",
    [
        "\n    def reconnect(self, other) -> None:\n        self.consumer = other\n",
        "\n\ndef swap(processor, other):\n    processor.consumer = other\n",
        "\n    consumer = None\n",
    ],
    ids=["rebound-in-a-method", "rebound-from-outside", "class-attribute"],
)
def test_a_kept_consumer_that_may_be_rebound_is_not_passed(tail: str) -> None:
    source = textwrap.dedent(KEPT.format(store=PLAIN, tail=tail))
    result = migrate_source(source.encode(), "app.py")
    assert result.status == "ok" and result.new_source is None, result
    assert any("on_partitions_revoked is called directly at line" in m.reason for m in result.manual), result.manual


#: A typed processor of the same shape (the application samples), for the type checkers: it
#: keeps a manual site (the kept consumer), so it cannot be a fixture with a migrated twin.
TYPED = """\
from __future__ import annotations

import asyncio
from collections.abc import Set as AbstractSet

from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
from aiokafka.structs import TopicPartition


class Processor(ConsumerRebalanceListener):
    def __init__(self, topic_id: str, consumer: AIOKafkaConsumer) -> None:
        self.topic_id, self.consumer = topic_id, consumer
        self.owned: set[TopicPartition] = set()

    async def run(self, stopping: asyncio.Event) -> None:
        try:
            while not stopping.is_set():
                batches = await self.consumer.getmany(timeout_ms=100)
                for tp, records in batches.items():
                    if records:
                        await self.consumer.commit({tp: records[-1].offset + 1})
            await self.on_partitions_revoked(set(self.owned))
        finally:
            await self.consumer.stop()

    async def on_partitions_assigned(self, assigned: AbstractSet[TopicPartition]) -> None:
        self.owned = set(assigned)

    async def on_partitions_revoked(self, revoked: AbstractSet[TopicPartition]) -> None:
        self.owned -= revoked
        await self.consumer.commit()


async def serve(topic: str, stopping: asyncio.Event) -> None:
    kafka = AIOKafkaConsumer(group_id="processor", enable_auto_commit=False)
    processor = Processor(topic, kafka)
    kafka.subscribe([topic], listener=processor)
    await kafka.start()
    await processor.run(stopping)
"""


@pytest.mark.slow
def test_the_migrated_processor_type_checks(tmp_path: Path) -> None:
    result = migrate_source(TYPED.encode(), "processor.py")
    assert result.status == "ok" and result.new_source is not None
    assert "await self.on_partitions_revoked(set(self.owned), consumer=self.consumer)" in result.new_source.decode()
    for side, text in (("before", TYPED.encode()), ("after", result.new_source)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "processor.py").write_bytes(text)
    before, after = tmp_path / "before", tmp_path / "after"
    assert added(mypy_errors(before), mypy_errors(after)) == {}
    assert added(pyright_errors(before), pyright_errors(after)) == {}
