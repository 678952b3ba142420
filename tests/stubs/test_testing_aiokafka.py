"""The aiokafka harness: sync and async listeners through the runtime's adapter and view."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest
from aiokafka.errors import CommitFailedError
from aiokafka.structs import TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.aiokafka import AIOKafkaRebalanceView, NotAwaitedError, RebalanceListener
from rebalance_guard.testing.aiokafka import ListenerHarness

T0, T1, T2 = (TopicPartition("orders", n) for n in range(3))


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


class AsyncRecorder(RebalanceListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, set[TopicPartition], set[TopicPartition]]] = []
        self.views: list[object] = []

    async def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self.views.append(consumer)
        self.events.append(("assigned", set(partitions), set(consumer.assignment())))

    async def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self.views.append(consumer)
        self.events.append(("revoked", set(partitions), set(consumer.assignment())))
        await consumer.commit()

    async def on_partitions_lost(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self.events.append(("lost", set(partitions), set(consumer.assignment())))
        await consumer.commit({tp: 1 for tp in partitions})


def test_async_listener_sequences_expiry_and_bare_commit() -> None:
    listener = AsyncRecorder()
    harness = ListenerHarness(listener, protocol="cooperative")

    async def scenario() -> None:
        await harness.rebalance([T0, T1])
        harness.set_positions({T0: 11, T1: 12})
        await harness.rebalance([T1, T2])

    run(scenario())
    assert listener.events == [
        ("assigned", {T0, T1}, {T0, T1}),
        ("revoked", {T0}, {T0, T1}),
        ("assigned", {T2}, {T1, T2}),
    ]
    assert harness.commits == [{T0: 11, T1: 12}]
    assert type(listener.views[0]) is AIOKafkaRebalanceView
    with pytest.raises(RebalanceViewExpiredError):
        listener.views[0].assignment()  # type: ignore[attr-defined]


def test_lost_is_a_revocation_without_generation_and_its_commit_fails() -> None:
    listener = AsyncRecorder()
    harness = ListenerHarness(listener)
    run(harness.assign([T0, T1]))
    with pytest.raises(CommitFailedError):
        run(harness.lose([T0]))
    assert listener.events[-1] == ("lost", {T0}, {T1})
    assert harness.assignment == {T1}


def test_sync_listener_and_a_coroutine_never_awaited() -> None:
    class Forgets(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            for tp in partitions:
                consumer.seek(tp, 5)
            consumer.pause(*partitions)

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            consumer.commit()  # a coroutine, never awaited: KRB106

    harness = ListenerHarness(Forgets())
    run(harness.assign([T0]))
    assert harness.seeks == [(T0, 5)] and harness.paused == {T0}
    with pytest.raises(NotAwaitedError, match="commit"):
        run(harness.revoke())
    assert harness.commits == [] and harness.assignment == set()


def test_eager_rebalance_revokes_everything_first() -> None:
    listener = AsyncRecorder()
    harness = ListenerHarness(listener, protocol="eager")
    run(harness.rebalance([T0]))
    run(harness.rebalance([T1]))
    assert [(e[0], e[1]) for e in listener.events] == [
        ("revoked", set()),
        ("assigned", {T0}),
        ("revoked", {T0}),
        ("assigned", {T1}),
    ]
    assert harness.commits == [{T0: 0}]


def test_every_permitted_method_works_on_the_recording_consumer() -> None:
    class Everything(RebalanceListener):
        async def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            assert await consumer.position(T0) == 4
            assert await consumer.committed(T0) == 4
            assert await consumer.end_offsets([T0]) == {T0: 9}
            assert await consumer.beginning_offsets([T0]) == {T0: 0}
            assert await consumer.offsets_for_times({T0: 1}) == {T0: None}
            assert await consumer.topics() == {"orders"}
            assert consumer.partitions_for_topic("orders") == {0}
            assert consumer.highwater(T0) == consumer.last_stable_offset(T0) == 9
            await consumer.seek_to_end(T0)
            await consumer.seek_to_beginning()
            consumer.pause(T0)
            consumer.resume(T0)
            assert consumer.paused() == set()
            await consumer.commit({T0: 4})

        async def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

    harness = ListenerHarness(Everything())
    harness.set_committed({T0: 4})
    harness.set_end_offsets({T0: 9})
    run(harness.assign([T0]))
    assert harness.seeks == [(T0, 9), (T0, 0)] and harness.commits == [{T0: 4}]
    public = {n for n in vars(AIOKafkaRebalanceView) if not n.startswith("_")}
    assert public - set(harness.consumer.recording.calls) == {"seek"}  # seek: tested above
