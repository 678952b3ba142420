"""The AIOConsumer view and adapter on real (unconnected) AIOConsumer objects, no broker.

librdkafka keeps the assignment locally, so ``assign()``, ``assignment()``, ``unassign()``
and the adapter's callbacks can be exercised without a broker; callbacks from ``poll()``,
protocols and exceptions through ``poll()`` are in tests/integration and tests/conformance.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import confluent_kafka
import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.aio import AIOConsumer
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard._view import OMITTED, live
from rebalance_guard.confluent_kafka_aio import (
    AIOConfluentRebalanceView,
    NotAwaitedError,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
    subscribe,
)

from tests.stubs.test_confluent_kafka_view import CALLS as SYNC_CALLS
from tests.stubs.test_confluent_kafka_view import CONFIG, TP0, TP1

PERMITTED = {name for name in vars(RebalanceConsumer) if not name.startswith("_")}
#: The sync view's sample calls; AIOConsumer has no memberid().
CALLS = {name: args for name, args in SYNC_CALLS.items() if name != "memberid"}


def run(test: Callable[[AIOConsumer], Awaitable[None]]) -> None:
    """Run ``test`` with a fresh AIOConsumer (it needs a running loop), closed afterwards."""

    async def main() -> None:
        async with _consumer() as consumer:
            await test(consumer)

    asyncio.run(main())


@asynccontextmanager
async def _consumer() -> AsyncIterator[AIOConsumer]:
    consumer = AIOConsumer(dict(CONFIG))
    try:
        yield consumer
    finally:
        await consumer.close()


def adapter(consumer: AIOConsumer) -> Any:
    """The callbacks the registration gives AIOConsumer.subscribe() (librdkafka calls them)."""
    return consumer.__dict__["_rebalance_guard_adapter"]


def test_view_offers_exactly_the_protocol() -> None:
    offered = {n for n in dir(AIOConfluentRebalanceView) if not n.startswith("_")}
    assert offered == PERMITTED == set(CALLS)


@pytest.mark.parametrize("name", sorted(n for n in dir(AIOConsumer) if not n.startswith("_")))
def test_every_other_consumer_method_is_refused(name: str) -> None:
    view = AIOConfluentRebalanceView(object(), "L.on_partitions_assigned")
    if name in PERMITTED:
        assert callable(getattr(view, name))
        return
    with pytest.raises(AttributeError) as info:
        getattr(view, name)
    if name in OMITTED:
        assert "KIP-1306" in str(info.value) and "L.on_partitions_assigned" in str(info.value)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_expired_view_raises_when_called_naming_method_and_callback(name: str) -> None:
    view = AIOConfluentRebalanceView(object(), "MyListener.on_partitions_revoked")
    with live(view):
        pass
    with pytest.raises(RebalanceViewExpiredError) as info:
        getattr(view, name)(*CALLS[name])  # raises at the call, before any await
    assert f"{name}()" in str(info.value)
    assert "MyListener.on_partitions_revoked()" in str(info.value)


class Recorder(RebalanceListener):
    """Seeks and pauses in assigned (awaited), keeps every view it was given."""

    def __init__(self) -> None:
        self.views: list[RebalanceConsumer] = []
        self.calls: list[tuple[str, set[int]]] = []

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.views.append(consumer)
        self.calls.append(("assigned", {p.partition for p in partitions}))
        await consumer.seek(TopicPartition("topic", 0, 42))
        self.seen_assignment = {p.partition for p in await consumer.assignment()}
        self.seen_position = {p.partition: p.offset for p in await consumer.position(partitions)}

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:  # a plain def works too
        self.views.append(consumer)
        self.calls.append(("revoked", {p.partition for p in partitions}))


def test_seek_in_assigned_goes_into_the_assignment() -> None:
    async def test(consumer: AIOConsumer) -> None:
        listener = Recorder()
        set_rebalance_listener(consumer, listener)
        await adapter(consumer).on_assign(consumer, [TP0, TP1])  # as from poll()
        assert listener.seen_assignment == {0, 1}
        assert listener.seen_position[0] == 42
        offsets = {p.partition: p.offset for p in await consumer.assignment()}
        assert offsets[0] == 42 and offsets[1] < 0
        await adapter(consumer).on_revoke(consumer, [TP0, TP1])
        assert await consumer.assignment() == []
        assert listener.calls == [("assigned", {0, 1}), ("revoked", {0, 1})]
        assert len({id(v) for v in listener.views}) == 2  # a new view per callback
        for view in listener.views:
            with pytest.raises(RebalanceViewExpiredError):
                view.assignment()  # type: ignore[unused-coroutine]

    run(test)


def test_a_view_coroutine_never_awaited_is_an_error_and_never_runs() -> None:
    class Forgetful(RebalanceListener):
        async def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            consumer.pause(partitions)  # type: ignore[unused-coroutine]  # no await

    async def test(consumer: AIOConsumer) -> None:
        set_rebalance_listener(consumer, Forgetful())
        with pytest.raises(NotAwaitedError, match=r"pause\(\).*Forgetful"):
            await adapter(consumer).on_assign(consumer, [TP0])
        assert [p.partition for p in await consumer.assignment()] == [0]  # still assigned

    run(test)


def test_exception_in_assigned_still_assigns_with_the_seeks() -> None:
    class Failing(RebalanceListener):
        async def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            await consumer.seek(TopicPartition("topic", 1, 7))
            raise ValueError("boom")

    async def test(consumer: AIOConsumer) -> None:
        set_rebalance_listener(consumer, Failing())
        with pytest.raises(ValueError, match="boom"):
            await adapter(consumer).on_assign(consumer, [TP0, TP1])
        offsets = {p.partition: p.offset for p in await consumer.assignment()}
        assert offsets[0] < 0 and offsets[1] == 7

    run(test)


def test_an_error_during_consume_is_raised_by_the_next_call() -> None:
    """confluent drops a consume() batch a callback raised through (and close() hangs)."""

    class Failing(RebalanceListener):
        async def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            raise ValueError("boom")

    async def test(consumer: AIOConsumer) -> None:
        set_rebalance_listener(consumer, Failing())
        callbacks = adapter(consumer)
        callbacks._batch = True  # as during consume()
        await callbacks.on_assign(consumer, [TP0])  # kept, the batch goes on
        callbacks._batch = False
        assert len(await consumer.assignment()) == 1
        with pytest.raises(ValueError, match="boom"):
            await consumer.poll(0)
        assert await consumer.consume(1, 0) == []  # raised once
        with pytest.raises(ValueError, match="boom"):  # outside consume(): at once, as before
            await callbacks.on_assign(consumer, [TP0])

    run(test)


def test_legacy_and_def_methods_returning_coroutines() -> None:
    calls: list[tuple[str, list[int]]] = []

    class Legacy:  # one-argument methods, one of them async
        async def on_partitions_assigned(self, partitions: list[TopicPartition]) -> None:
            calls.append(("assigned", [p.partition for p in partitions]))

        def on_partitions_revoked(self, partitions: list[TopicPartition]) -> None:
            calls.append(("revoked", [p.partition for p in partitions]))

    class Returning(RebalanceListener):
        def on_partitions_assigned(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> Awaitable[None]:
            return consumer.seek(TopicPartition("topic", 0, 9))  # awaited by the adapter

    async def test(consumer: AIOConsumer) -> None:
        set_rebalance_listener(consumer, Legacy())  # type: ignore[arg-type]
        await adapter(consumer).on_assign(consumer, [TP0])
        await adapter(consumer).on_lost(consumer, [TP0])  # no lost method: revoked runs
        assert calls == [("assigned", [0]), ("revoked", [0])]
        set_rebalance_listener(consumer, Returning())
        await adapter(consumer).on_assign(consumer, [TP0])
        assert [p.offset for p in await consumer.assignment()] == [9]

    run(test)


def test_lost_defaults_to_revoked_and_can_be_overridden() -> None:
    class Default(Recorder):
        pass

    class Overriding(Recorder):
        async def on_partitions_lost(
            self, partitions: list[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            self.calls.append(("lost", {p.partition for p in partitions}))

    async def test(consumer: AIOConsumer) -> None:
        for listener, expected in ((Default(), "revoked"), (Overriding(), "lost")):
            set_rebalance_listener(consumer, listener)
            await adapter(consumer).on_assign(consumer, [TP0])
            await adapter(consumer).on_lost(consumer, [TP0])
            assert listener.calls[-1] == (expected, {0})
            assert await consumer.assignment() == []

    run(test)


def test_registration_shadows_subscribe_until_removed_or_replaced() -> None:
    async def test(consumer: AIOConsumer) -> None:
        listener = Recorder()
        set_rebalance_listener(consumer, listener)
        assert "subscribe" in consumer.__dict__  # subscribe(topics) now passes the callbacks
        await consumer.subscribe(["topic"])
        set_rebalance_listener(consumer, None)  # the installed callbacks become no-ops
        assert "subscribe" not in consumer.__dict__
        await adapter(consumer).on_assign(consumer, [TP0])
        assert listener.calls == [] and len(await consumer.assignment()) == 1
        await adapter(consumer).on_revoke(consumer, [TP0])
        await subscribe(consumer, ["topic"], listener)
        await adapter(consumer).on_assign(consumer, [TP0])
        assert listener.calls == [("assigned", {0})]

        async def on_assign(c: AIOConsumer, partitions: list[TopicPartition]) -> None:
            pass

        await consumer.subscribe(["topic"], on_assign=on_assign)  # explicit callbacks win
        for name in ("_rebalance_guard_adapter", "subscribe", "poll", "consume", "close"):
            assert name not in consumer.__dict__

    run(test)


def test_bad_arguments_get_clear_messages() -> None:
    plain = confluent_kafka.Consumer(CONFIG)
    try:
        with pytest.raises(TypeError, match=r"AIOConsumer.*rebalance_guard.confluent_kafka\)"):
            set_rebalance_listener(plain, RebalanceListener())  # type: ignore[arg-type]
    finally:
        plain.close()

    async def test(consumer: AIOConsumer) -> None:
        with pytest.raises(TypeError, match="no on_partitions_assigned"):
            set_rebalance_listener(consumer, object())  # type: ignore[arg-type]
        single = AIOConsumer(dict(CONFIG), max_workers=1)  # poll() would hold the only worker
        try:
            with pytest.raises(ValueError, match="max_workers >= 2"):
                set_rebalance_listener(single, RebalanceListener())
        finally:
            await single.close()

    run(test)
