"""The AIOConsumer harness: the runtime adapter's (incremental_)assign, seek and pause handling,
awaited, and NotAwaitedError for a forgotten await."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.confluent_kafka_aio import (
    AIOConfluentRebalanceView,
    NotAwaitedError,
    RebalanceConsumer,
    RebalanceListener,
)
from rebalance_guard.testing.confluent_kafka_aio import ListenerHarness

O0, O1, O2 = ("orders", 0), ("orders", 1), ("orders", 2)


def tps(*keys: tuple[str, int]) -> list[TopicPartition]:
    return [TopicPartition(*key) for key in keys]


class Recorder(RebalanceListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, set[tuple[str, int]], set[tuple[str, int]]]] = []
        self.views: list[RebalanceConsumer] = []

    async def _saw(self, name: str, partitions: list[TopicPartition], view: Any) -> None:
        self.views.append(view)
        during = {(p.topic, p.partition) for p in await view.assignment()}
        self.events.append((name, {(p.topic, p.partition) for p in partitions}, during))

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await self._saw("assigned", partitions, consumer)
        for p in partitions:
            await consumer.seek(TopicPartition(p.topic, p.partition, 100 + p.partition))
        await consumer.pause(partitions)

    async def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await self._saw("revoked", partitions, consumer)
        await consumer.commit()


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_rebalances_seek_and_pause_through_the_adapters_assign(protocol: str) -> None:
    listener = Recorder()
    harness = ListenerHarness(listener, protocol=protocol)  # type: ignore[arg-type]

    async def steps() -> None:
        await harness.rebalance(tps(O0, O1))
        assert harness.seeks == [(O0, 100), (O1, 101)] and harness.paused == {O0, O1}
        harness.set_positions({O0: 150})
        await harness.rebalance(tps(O1, O2))

    asyncio.run(steps())
    calls = harness.recording.calls
    if protocol == "eager":
        assert "assign" in calls and "unassign" in calls and "incremental_assign" not in calls
        assert listener.events[-2] == ("revoked", {O0, O1}, {O0, O1})
    else:
        assert "incremental_assign" in calls and "assign" not in calls
        assert listener.events[-2] == ("revoked", {O0}, {O0, O1})
    assert harness.commits[0][O0] == 150  # the bare commit has the revoked partition's offset
    assert harness.assignment == {O1, O2}
    assert type(listener.views[0]) is AIOConfluentRebalanceView
    with pytest.raises(RebalanceViewExpiredError):
        listener.views[0].assignment()


def test_forgotten_await_and_lost_commits_are_raised_by_the_step() -> None:
    class Forgetful(RebalanceListener):
        def on_partitions_revoked(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            consumer.commit()  # type: ignore[unused-coroutine]  # a def cannot await it

        async def on_partitions_lost(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            await consumer.commit(offsets=[TopicPartition("orders", 0, 3)])

    harness = ListenerHarness(Forgetful())

    async def steps() -> None:
        await harness.assign(tps(O0))
        harness.set_positions({O0: 5})
        with pytest.raises(NotAwaitedError, match=r"commit\(\)"):
            await harness.revoke()
        await harness.assign(tps(O0))
        with pytest.raises(KafkaException) as raised:
            await harness.lose()
        assert raised.value.args[0].code() == KafkaError._ASSIGNMENT_LOST

    asyncio.run(steps())
    assert harness.commits == [] and harness.assignment == set()
