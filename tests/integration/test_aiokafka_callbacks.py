"""aiokafka rebalance callbacks through rebalance_guard, against the real broker.

Seek to an externally stored offset, eager rebalancing (aiokafka has no cooperative protocol,
so even its sticky assignor revokes everything), pause state, view expiry, callback errors
reaching getmany(), lost partitions, the revocation stop() runs, and
registering/replacing/removing a running listener.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Set as AbstractSet
from typing import Any

import pytest
from aiokafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
from aiokafka.structs import TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.aiokafka import (
    NotAwaitedError,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.aiokafka_support import (
    Fleet,
    eventually,
    fresh_topic,
    make_consumer,
    produce,
    split_evenly,
)
from tests.integration.broker import Broker

Calls = list[tuple[str, frozenset[TopicPartition]]]


class Recorder(RebalanceListener):
    """Records every callback; ``assignment`` is the last assigned set."""

    def __init__(self) -> None:
        self.calls: Calls = []
        self.assignment: frozenset[TopicPartition] = frozenset()

    def named(self, name: str) -> list[frozenset[TopicPartition]]:
        return [parts for call, parts in self.calls if call == name]

    def on_partitions_revoked(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.calls.append(("revoked", frozenset(partitions)))

    def on_partitions_assigned(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.calls.append(("assigned", frozenset(partitions)))
        self.assignment = frozenset(partitions)

    def on_partitions_lost(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.calls.append(("lost", frozenset(partitions)))


def test_seek_in_assigned_resumes_at_the_externally_stored_offset(broker: Broker) -> None:
    topic = broker.create_topic(1)
    tp = TopicPartition(topic, 0)
    group = broker.group()
    store = {tp: 7}  # offsets kept outside Kafka; nothing is ever committed to the group

    async def read_store(partition: TopicPartition) -> int:
        await asyncio.sleep(1)  # an external store answers slower than Kafka fetches
        return store[partition]

    class FromStore(RebalanceListener):
        async def on_partitions_assigned(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            for partition in partitions:
                consumer.seek(partition, await read_store(partition))

    def process(partition: TopicPartition, records: list[Any]) -> None:
        store[partition] = records[-1].offset + 1

    async def session(reset: str, until: int) -> tuple[list[int], int | None]:
        async with Fleet() as fleet:
            consumer = make_consumer(broker.bootstrap, group, auto_offset_reset=reset)
            set_rebalance_listener(consumer, FromStore())
            consumer.subscribe([topic])
            pump = await fleet.start(consumer, process)
            await eventually(lambda: store[tp] >= until, f"consuming up to offset {until}")
            return [r.offset for r in pump.records], await consumer.committed(tp)

    async def scenario() -> None:
        await produce(broker.bootstrap, topic, range(20), partition=0)
        # Without the seek, "latest" decides: the end.
        offsets, committed = await session("latest", until=20)
        assert offsets == list(range(7, 20))
        await produce(broker.bootstrap, topic, range(20, 30), partition=0)
        # A new member of the same group: "earliest" would restart at 0; the store says 20.
        offsets, committed = await session("earliest", until=30)
        assert offsets == list(range(20, 30))
        assert committed is None  # the position came from the store, not from Kafka

    asyncio.run(scenario())


def test_eager_rebalance_revokes_everything_and_pause_follows_the_assignment(
    broker: Broker,
) -> None:
    topic, group, everything = fresh_topic(broker, 4)
    held = TopicPartition(topic, 0)

    class PauseOnFirstAssignment(Recorder):
        def __init__(self) -> None:
            super().__init__()
            self.paused_inside: list[AbstractSet[TopicPartition]] = []

        async def on_partitions_assigned(  # type: ignore[override]
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_assigned(partitions, consumer)
            await asyncio.sleep(0.2)
            self.paused_inside.append(consumer.paused())
            if len(self.named("assigned")) == 1:
                consumer.pause(held)
                self.paused_inside.append(consumer.paused())

    async def scenario() -> None:
        for p in range(4):
            await produce(broker.bootstrap, topic, range(p * 100, p * 100 + 10), partition=p)
        sticky = {"partition_assignment_strategy": (StickyPartitionAssignor,)}
        first, second = PauseOnFirstAssignment(), Recorder()
        async with Fleet() as fleet:
            c1 = make_consumer(broker.bootstrap, group, **sticky)
            set_rebalance_listener(c1, first)
            c1.subscribe([topic])
            pump1 = await fleet.start(c1)  # returns before the async callback is done
            await eventually(lambda: len(first.paused_inside) == 2, "the callback to finish")
            assert c1.paused() == {held}  # the pause made in the callback outlived it
            assert first.paused_inside == [set(), {held}]  # the adapter's hold is invisible
            await eventually(lambda: len(pump1.records) >= 30, "the unpaused partitions")
            assert not [r for r in pump1.records if r.partition == held.partition]

            c2 = make_consumer(broker.bootstrap, group, **sticky)
            set_rebalance_listener(c2, second)
            c2.subscribe([topic])
            pump2 = await fleet.start(c2)
            await eventually(
                lambda: split_evenly([first.assignment, second.assignment], everything),
                "two members to share the partitions",
            )
            # Eager: the whole previous assignment is revoked, the whole new one assigned.
            assert first.named("revoked") == [frozenset(), everything]
            assert first.named("assigned") == [everything, first.assignment]
            assert second.named("assigned") == [second.assignment]
            await eventually(lambda: len(first.paused_inside) == 3, "the callback to finish")
            assert first.paused_inside[2] == set()
            assert c1.paused() == set()  # pause on a revoked partition is gone

            def held_values() -> set[int]:
                records = pump1.records + pump2.records
                return {int(r.value) for r in records if r.partition == held.partition}

            await eventually(lambda: held_values() == set(range(10)), "the unpaused partition")

    asyncio.run(scenario())


def test_stored_view_expires_and_callback_errors_reach_getmany(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    topic, group, everything = fresh_topic(broker, 2)

    class Faulty(Recorder):
        stored: RebalanceConsumer | None = None

        def on_partitions_assigned(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_assigned(partitions, consumer)
            self.stored = consumer
            if len(self.named("assigned")) == 1:
                raise RuntimeError("assigned boom")

        def on_partitions_revoked(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            super().on_partitions_revoked(partitions, consumer)
            if partitions:
                consumer.commit()  # type: ignore[unused-coroutine]  # the forgotten await

    async def scenario() -> None:
        for p in range(2):
            await produce(broker.bootstrap, topic, range(10), partition=p)
        faulty, other = Faulty(), Recorder()
        async with Fleet() as fleet:
            c1 = make_consumer(broker.bootstrap, group)
            set_rebalance_listener(c1, faulty)
            c1.subscribe([topic])
            await fleet.start_idle(c1)  # first assignment: on_partitions_assigned raises
            assert c1.assignment() == everything  # the rebalance completed anyway
            assert faulty.stored is not None
            with pytest.raises(RebalanceViewExpiredError) as expired:
                faulty.stored.assignment()
            assert "assignment()" in str(expired.value)
            assert "Faulty.on_partitions_assigned()" in str(expired.value)
            with pytest.raises(RuntimeError, match="assigned boom"):
                await c1.getmany(timeout_ms=100)
            batch = await c1.getmany(timeout_ms=1000)  # raised once only: polling goes on
            early = sum(len(records) for records in batch.values())

            pump1 = fleet.pump(c1)
            await eventually(lambda: early + len(pump1.records) >= 20, "c1 to consume everything")
            c2 = make_consumer(broker.bootstrap, group)
            set_rebalance_listener(c2, other)
            c2.subscribe([topic])
            await fleet.start(c2)  # c1's revoke forgets an await: NotAwaitedError
            await eventually(
                lambda: split_evenly([faulty.assignment, other.assignment], everything),
                "the rebalance to complete despite the failed revoke",
            )
            await eventually(lambda: bool(pump1.errors), "the error to reach c1's getmany")
            (error,) = pump1.errors
            assert isinstance(error, NotAwaitedError)
            assert "commit()" in str(error)
            assert "Faulty.on_partitions_revoked()" in str(error)
            assert len(faulty.named("assigned")) == 2  # later callbacks still ran
            for tp in everything:
                assert await c1.committed(tp) is None  # the un-awaited commit never ran
            await pump1.stop()
            with pytest.raises(NotAwaitedError):  # stop() revokes first, as Java's close()
                await c1.stop()

    with caplog.at_level(logging.ERROR, logger="aiokafka"):
        asyncio.run(scenario())
    logged = {
        type(r.exc_info[1]) for r in caplog.records if r.name.startswith("aiokafka") and r.exc_info
    }
    assert logged == {RuntimeError, NotAwaitedError}  # aiokafka still logs them, as it always did


def test_lost_instead_of_revoked_after_leaving_the_group(broker: Broker) -> None:
    topic, group, everything = fresh_topic(broker, 2)

    async def scenario() -> None:
        listener = Recorder()
        async with Fleet() as fleet:
            # Idle past max_poll_interval_ms: aiokafka leaves the group by itself.
            consumer = make_consumer(broker.bootstrap, group, max_poll_interval_ms=3_000)
            set_rebalance_listener(consumer, listener)
            consumer.subscribe([topic])
            await fleet.start_idle(consumer)
            await eventually(lambda: bool(listener.named("lost")), "the member to leave")
            assert listener.calls == [
                ("revoked", frozenset()),
                ("assigned", everything),
                ("lost", everything),
            ]
            fleet.pump(consumer)  # polling again rejoins the group
            await eventually(lambda: len(listener.named("assigned")) == 2, "the rejoin")
            assert listener.named("lost") == [everything]
            assert listener.named("revoked") == [frozenset()]

    asyncio.run(scenario())


def test_listener_registered_after_subscribe_replaced_and_removed_while_running(
    broker: Broker,
) -> None:
    topic, group, everything = fresh_topic(broker, 2)

    async def scenario() -> None:
        first, second, peer = Recorder(), Recorder(), Recorder()
        async with Fleet() as fleet:
            c1 = make_consumer(broker.bootstrap, group)
            c1.subscribe([topic])
            set_rebalance_listener(c1, first)  # after subscribe()
            await fleet.start(c1)
            assert first.calls == [("revoked", frozenset()), ("assigned", everything)]

            set_rebalance_listener(c1, second)  # replaced while running
            c2 = make_consumer(broker.bootstrap, group)
            set_rebalance_listener(c2, peer)
            c2.subscribe([topic])
            pump2 = await fleet.start(c2)
            await eventually(
                lambda: split_evenly([second.assignment, peer.assignment], everything),
                "two members to share the partitions",
            )
            assert len(first.calls) == 2  # the replaced listener heard nothing more
            assert second.named("revoked") == [everything]

            set_rebalance_listener(c1, None)  # removed while running
            await pump2.stop()
            await c2.stop()
            await eventually(lambda: c1.assignment() == everything, "c1 to own everything")
            assert len(second.calls) == 2  # no callbacks once removed

    asyncio.run(scenario())


class BareCommitOnRevoke(RebalanceListener):
    """KIP-1306's own example: a bare commit() when partitions are revoked."""

    def __init__(self) -> None:
        self.revocations: list[tuple[frozenset[TopicPartition], frozenset[TopicPartition]]] = []

    async def on_partitions_revoked(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.revocations.append((frozenset(partitions), frozenset(consumer.assignment())))
        if partitions:
            await consumer.commit()


async def _consume(consumer: Any, count: int) -> int:
    seen = 0
    deadline = asyncio.get_running_loop().time() + 60
    while seen < count:
        assert asyncio.get_running_loop().time() < deadline, f"only {seen} of {count} records"
        batches = await consumer.getmany(timeout_ms=100)
        seen += sum(len(records) for records in batches.values())
    return seen


async def _committed(broker: Broker, group: str, partitions: frozenset[TopicPartition]) -> Any:
    """The group's committed offsets, as the partitions' next owner would read them."""
    reader = make_consumer(broker.bootstrap, group)
    await reader.start()
    try:
        return {tp: await reader.committed(tp) for tp in partitions}
    finally:
        await reader.stop()


def test_stop_revokes_first_and_a_bare_commit_there_commits_what_was_processed(
    broker: Broker,
) -> None:
    """aiokafka's stop() calls no listener; through rebalance_guard it revokes, as Java's close().

    Without that, a member leaving with just ``stop()`` committed nothing since its last
    rebalance and the next owners re-read it all (286 and 832 duplicates in two chaos runs).
    """
    topic, group, everything = fresh_topic(broker, 2)
    p0, p1 = sorted(everything)

    async def scenario() -> None:
        await produce(broker.bootstrap, topic, range(10), partition=p0.partition)
        await produce(broker.bootstrap, topic, range(10, 16), partition=p1.partition)
        listener = BareCommitOnRevoke()
        consumer = make_consumer(broker.bootstrap, group)
        set_rebalance_listener(consumer, listener)
        consumer.subscribe([topic])
        await consumer.start()
        try:
            assert await _consume(consumer, 16) == 16
        finally:
            await consumer.stop()  # no commit of our own before it
        # the revocation ran inside stop(), with the partitions still assigned on the view
        assert listener.revocations == [(frozenset(), frozenset()), (everything, everything)]
        assert await _committed(broker, group, everything) == {p0: 10, p1: 6}

    asyncio.run(scenario())


def test_an_error_in_the_revocation_on_stop_is_raised_by_stop_after_closing(
    broker: Broker,
) -> None:
    from aiokafka.errors import ConsumerStoppedError

    topic, group, _ = fresh_topic(broker, 1)

    class FailsOnRevoke(RebalanceListener):
        def on_partitions_revoked(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            if partitions:
                raise ValueError("boom on the way out")

    async def scenario() -> None:
        consumer = make_consumer(broker.bootstrap, group)
        set_rebalance_listener(consumer, FailsOnRevoke())
        consumer.subscribe([topic])
        await consumer.start()
        await eventually(lambda: bool(consumer.assignment()), "the first assignment")
        with pytest.raises(ValueError, match="boom on the way out"):
            await consumer.stop()
        await consumer.stop()  # closed: a second stop() does nothing and raises nothing
        with pytest.raises(ConsumerStoppedError):
            await consumer.getmany(timeout_ms=10)

    asyncio.run(scenario())


def test_stop_does_not_revoke_for_a_listener_that_was_replaced(broker: Broker) -> None:
    """A listener removed or replaced by aiokafka's own keeps aiokafka's stop(): no callback."""
    from aiokafka.abc import ConsumerRebalanceListener

    topic, group, _ = fresh_topic(broker, 1)

    class Own(ConsumerRebalanceListener):
        def __init__(self) -> None:
            self.revoked: list[Any] = []

        def on_partitions_revoked(self, revoked: Any) -> None:
            self.revoked.append(set(revoked))

        def on_partitions_assigned(self, assigned: Any) -> None:
            pass

    async def scenario() -> None:
        guarded, own = Recorder(), Own()
        consumer = make_consumer(broker.bootstrap, group)
        set_rebalance_listener(consumer, guarded)
        consumer.subscribe([topic], listener=own)  # aiokafka's own listener replaces it
        await consumer.start()
        await eventually(lambda: bool(consumer.assignment()), "the first assignment")
        await consumer.stop()
        assert guarded.calls == []
        assert own.revoked == [set()]  # its first join only: aiokafka's stop() calls nothing

    asyncio.run(scenario())
