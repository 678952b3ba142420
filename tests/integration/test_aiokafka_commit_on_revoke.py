"""Commit on revoke through the view: three aiokafka consumers, four rebalances, live producer.

Every numbered message must be processed exactly once: the listener commits exactly what was
processed when partitions are revoked, also when a consumer leaves with just ``stop()``
(aiokafka itself calls no listener there; through rebalance_guard stop() revokes first, as
Java's close() does).
"""

from __future__ import annotations

import asyncio
from collections.abc import Set as AbstractSet
from typing import Any

from aiokafka.structs import ConsumerRecord, TopicPartition
from rebalance_guard.aiokafka import RebalanceConsumer, RebalanceListener, set_rebalance_listener

from tests.integration.aiokafka_support import (
    Fleet,
    Pump,
    eventually,
    fresh_topic,
    make_consumer,
    produce,
    split_evenly,
)
from tests.integration.broker import Broker

PARTITIONS = 3


class CommitOnRevoke(RebalanceListener):
    """Processes records into ``processed`` and commits the processed offsets on revoke."""

    def __init__(self, processed: list[int]) -> None:
        self.processed = processed
        self.positions: dict[TopicPartition, int] = {}
        self.assignment: frozenset[TopicPartition] = frozenset()
        self.assigned_calls = 0
        self.revoked_with_partitions = 0
        self.lost_calls = 0

    def process(self, tp: TopicPartition, records: list[ConsumerRecord[Any, Any]]) -> None:
        self.processed.extend(int(r.value) for r in records)
        self.positions[tp] = records[-1].offset + 1

    async def on_partitions_revoked(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        offsets = {tp: self.positions.pop(tp) for tp in partitions if tp in self.positions}
        if offsets:
            await consumer.commit(offsets)
        self.revoked_with_partitions += bool(partitions)

    def on_partitions_assigned(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.assignment = frozenset(partitions)
        self.assigned_calls += 1

    def on_partitions_lost(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.lost_calls += 1  # must not happen here: every member keeps polling


async def _scenario(broker: Broker) -> None:
    topic, group, everything = fresh_topic(broker, PARTITIONS)
    processed: list[int] = []
    produced = 0
    producing = True

    async def producer() -> None:
        nonlocal produced
        while producing:
            await produce(broker.bootstrap, topic, range(produced, produced + 10))
            produced += 10
            await asyncio.sleep(0.1)

    async with Fleet() as fleet:
        producer_task = asyncio.create_task(producer())
        listeners: list[CommitOnRevoke] = []
        pumps: list[Pump] = []

        async def join() -> None:
            listener = CommitOnRevoke(processed)
            consumer = make_consumer(broker.bootstrap, group)
            set_rebalance_listener(consumer, listener)
            consumer.subscribe([topic])
            listeners.append(listener)
            pumps.append(await fleet.start(consumer, listener.process))

        async def stable(members: list[CommitOnRevoke], what: str) -> None:
            await eventually(
                lambda: split_evenly([m.assignment for m in members], everything), what
            )

        try:
            await join()  # first assignment
            await eventually(lambda: len(processed) >= 20, "first consumer to process messages")
            await join()  # rebalance 1
            await stable(listeners[:2], "two consumers to share the partitions")
            await join()  # rebalance 2
            await stable(listeners, "three consumers to share the partitions")
            leaver = pumps[0]
            await leaver.stop()  # rebalance 3: the first consumer leaves
            await leaver.consumer.stop()  # its revocation commits (no commit of our own)
            await stable(listeners[1:], "two remaining consumers to share the partitions")
            count_before = len(processed)
            await pumps[1].stop()  # rebalance 4: the second consumer leaves too
            await pumps[1].consumer.stop()
            await stable(listeners[2:], "the last consumer to own every partition")
            await eventually(lambda: len(processed) > count_before + 20, "more processing")
        finally:
            producing = False
            await producer_task
        await eventually(lambda: len(set(processed)) >= produced, "every message processed")
        for pump in pumps:
            assert not pump.errors, pump.errors

    assert sorted(processed) == list(range(produced)), "a message was lost or processed twice"
    assert produced >= 100
    assert listeners[0].assigned_calls >= 3  # own join, second join, third join
    assert listeners[1].assigned_calls >= 3  # own join, third join, first leaves
    assert listeners[2].assigned_calls >= 3  # own join, first leaves, second leaves
    assert sum(listener.revoked_with_partitions for listener in listeners) >= 6
    assert listeners[0].revoked_with_partitions >= 3  # the last one inside stop()
    assert all(listener.lost_calls == 0 for listener in listeners)


def test_commit_on_revoke_processes_every_message_exactly_once(broker: Broker) -> None:
    asyncio.run(_scenario(broker))
