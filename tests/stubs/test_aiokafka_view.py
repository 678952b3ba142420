"""Runtime semantics of rebalance_guard.aiokafka that need a real consumer object but no broker.

Callbacks are driven through the adapter exactly as aiokafka's coordinator drives them
(``await listener.on_partitions_*(partitions)``); what depends on a group coordinator
(lost detection, errors reaching getmany) is proven in tests/integration/test_aiokafka_*.py.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import subprocess
import sys
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from collections.abc import Set as AbstractSet
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.structs import TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard._view import OMITTED
from rebalance_guard.aiokafka import (
    AIOKafkaRebalanceView,
    NotAwaitedError,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

TP0 = TopicPartition("t", 0)
TP1 = TopicPartition("t", 1)
PARTS = frozenset({TP0, TP1})


@asynccontextmanager
async def real_consumer() -> AsyncIterator[AIOKafkaConsumer]:
    consumer = AIOKafkaConsumer(bootstrap_servers="127.0.0.1:1", group_id="g")
    try:
        yield consumer
    finally:
        await consumer.stop()


def run(test: Callable[[AIOKafkaConsumer], Awaitable[None]]) -> None:
    async def body() -> None:
        async with real_consumer() as consumer:
            await test(consumer)

    asyncio.run(body())


def installed(consumer: AIOKafkaConsumer) -> Any:
    """The listener aiokafka's coordinator will call (it reads this slot per callback)."""
    return consumer._subscription.listener


class Recorder(RebalanceListener):
    def __init__(self) -> None:
        self.calls: list[tuple[str, AbstractSet[TopicPartition]]] = []
        self.views: list[RebalanceConsumer] = []

    def on_partitions_assigned(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.calls.append(("assigned", partitions))
        self.views.append(consumer)

    async def on_partitions_revoked(
        self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await asyncio.sleep(0)  # really suspends: the adapter must await to completion
        self.calls.append(("revoked", partitions))
        self.views.append(consumer)


def test_new_view_per_callback_expires_naming_method_and_callback() -> None:
    async def test(consumer: AIOKafkaConsumer) -> None:
        listener = Recorder()
        set_rebalance_listener(consumer, listener)
        await installed(consumer).on_partitions_assigned(PARTS)
        await installed(consumer).on_partitions_assigned(PARTS)
        first, second = listener.views
        assert first is not second
        assert isinstance(first, AIOKafkaRebalanceView)
        with pytest.raises(RebalanceViewExpiredError) as sync_call:
            first.seek(TP0, 3)
        assert "seek()" in str(sync_call.value)
        assert "Recorder.on_partitions_assigned()" in str(sync_call.value)
        # A coroutine method refuses at call time, not only when awaited.
        with pytest.raises(RebalanceViewExpiredError, match=r"commit\(\).*Recorder"):
            second.commit()  # type: ignore[unused-coroutine]  # raises before any coroutine exists
        assert "expired" in repr(first)

    run(test)


def test_view_forwards_permitted_methods_to_the_real_consumer() -> None:
    seen: dict[str, object] = {}

    class Reader(RebalanceListener):
        def on_partitions_assigned(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            seen["assignment"] = consumer.assignment()
            seen["paused"] = consumer.paused()
            seen["partitions_for_topic"] = consumer.partitions_for_topic("t")

    async def test(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, Reader())
        await installed(consumer).on_partitions_assigned(PARTS)
        assert seen == {
            "assignment": consumer.assignment(),
            "paused": consumer.paused(),
            "partitions_for_topic": consumer.partitions_for_topic("t"),
        }

    run(test)


@pytest.mark.parametrize("name", ["getone", "getmany", "stop", "start", "subscribe", "assign",
                                  "unsubscribe", "__aiter__", "seek_to_committed"])  # fmt: skip
def test_omitted_methods_are_not_on_the_view(name: str) -> None:
    async def test(consumer: AIOKafkaConsumer) -> None:
        view = AIOKafkaRebalanceView(consumer, "L.on_partitions_assigned")
        assert hasattr(consumer, name)
        with pytest.raises(AttributeError, match=name):
            getattr(view, name)

    run(test)


def test_sync_and_async_methods_in_one_listener_are_awaited() -> None:
    async def test(consumer: AIOKafkaConsumer) -> None:
        listener = Recorder()
        set_rebalance_listener(consumer, listener)
        await installed(consumer).on_partitions_revoked(PARTS)
        await installed(consumer).on_partitions_assigned(frozenset({TP0}))
        assert listener.calls == [("revoked", PARTS), ("assigned", {TP0})]

    run(test)


def test_one_arg_methods_and_legacy_listeners_run_unchanged() -> None:
    calls: list[tuple[str, AbstractSet[TopicPartition]]] = []

    class OneArg(RebalanceListener):
        def on_partitions_assigned(self, partitions):  # type: ignore[no-untyped-def,override]
            calls.append(("assigned", partitions))

    class Legacy(ConsumerRebalanceListener):  # type: ignore[misc]
        def on_partitions_revoked(self, revoked: AbstractSet[TopicPartition]) -> None:
            calls.append(("legacy revoked", revoked))

        async def on_partitions_assigned(self, assigned: AbstractSet[TopicPartition]) -> None:
            calls.append(("legacy assigned", assigned))

    async def test(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, OneArg())
        await installed(consumer).on_partitions_assigned(PARTS)
        legacy = Legacy()
        set_rebalance_listener(consumer, legacy)
        assert installed(consumer) is legacy  # installed as is: aiokafka runs it as before
        consumer.subscribe(["t"], listener=legacy)  # the old way still works too
        assert installed(consumer) is legacy
        await legacy.on_partitions_assigned(PARTS)
        assert calls == [("assigned", PARTS), ("legacy assigned", PARTS)]

    run(test)


def test_lost_defaults_to_revoked_sync_and_async() -> None:
    calls: list[str] = []

    class Sync(RebalanceListener):
        def on_partitions_revoked(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            calls.append("sync revoked")

    class Async(RebalanceListener):
        async def on_partitions_revoked(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            calls.append("async revoked")

    async def test(consumer: AIOKafkaConsumer) -> None:
        view = AIOKafkaRebalanceView(consumer, "L.on_partitions_lost")
        assert Sync().on_partitions_lost(PARTS, view) is None
        result = Async().on_partitions_lost(PARTS, view)
        assert result is not None
        await result
        assert calls == ["sync revoked", "async revoked"]

    run(test)


def test_register_before_subscribe_survives_subscribe() -> None:
    async def test(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, Recorder())
        adapter = installed(consumer)
        assert isinstance(adapter, ConsumerRebalanceListener)  # aiokafka accepts it
        consumer.subscribe(["t"])
        assert installed(consumer) is adapter
        consumer.subscribe(["t", "u"])
        assert installed(consumer) is adapter
        # (unsubscribe() before start() is not tried: aiokafka 0.14 crashes on it by itself.)

    async def pattern(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, Recorder())
        adapter = installed(consumer)
        consumer.subscribe(pattern="^t$")
        assert installed(consumer) is adapter

    run(test)
    run(pattern)


def test_register_after_subscribe_replace_and_remove() -> None:
    async def test(consumer: AIOKafkaConsumer) -> None:
        consumer.subscribe(["t"])
        first, second = Recorder(), Recorder()
        set_rebalance_listener(consumer, first)
        await installed(consumer).on_partitions_assigned(PARTS)
        set_rebalance_listener(consumer, second)
        await installed(consumer).on_partitions_assigned(PARTS)
        assert (len(first.calls), len(second.calls)) == (1, 1)
        set_rebalance_listener(consumer, None)
        assert installed(consumer) is None
        consumer.subscribe(["t"])
        assert installed(consumer) is None
        assert "subscribe" not in vars(consumer)

    run(test)


def test_explicit_subscribe_listener_replaces_registration() -> None:
    class Legacy(ConsumerRebalanceListener):  # type: ignore[misc]
        def on_partitions_revoked(self, revoked: object) -> None: ...
        def on_partitions_assigned(self, assigned: object) -> None: ...

    async def test(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, Recorder())
        legacy = Legacy()
        consumer.subscribe(["t"], listener=legacy)
        assert installed(consumer) is legacy
        consumer.subscribe(["t"])  # plain aiokafka again: no listener
        assert installed(consumer) is None

    run(test)


def test_forgotten_await_is_an_error_and_nothing_runs() -> None:
    class Forgetful(RebalanceListener):
        def on_partitions_revoked(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            consumer.commit()  # type: ignore[unused-coroutine]

    async def test(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, Forgetful())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(NotAwaitedError, match=r"commit\(\).*Forgetful"):
                await installed(consumer).on_partitions_revoked(PARTS)
            gc.collect()
        assert not [w for w in caught if "never awaited" in str(w.message)]

    run(test)


def test_callback_exception_propagates_to_aiokafka() -> None:
    class Boom(RebalanceListener):
        async def on_partitions_revoked(
            self, partitions: AbstractSet[TopicPartition], consumer: RebalanceConsumer
        ) -> None:
            raise ValueError("boom")

    async def test(consumer: AIOKafkaConsumer) -> None:
        set_rebalance_listener(consumer, Boom())
        listener = installed(consumer)
        with pytest.raises(ValueError, match="boom"):
            await listener.on_partitions_revoked(PARTS)

    run(test)


def test_bad_input_gets_a_clear_type_error() -> None:
    async def test(consumer: AIOKafkaConsumer) -> None:
        with pytest.raises(TypeError, match=r"needs an aiokafka\.AIOKafkaConsumer"):
            set_rebalance_listener(object(), Recorder())
        with pytest.raises(TypeError, match="listener must be"):
            set_rebalance_listener(consumer, object())
        assert installed(consumer) is None

    run(test)


def test_importing_the_module_does_not_import_aiokafka() -> None:
    code = "import sys, rebalance_guard.aiokafka; print('aiokafka' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_protocol_matches_aiokafka_and_the_runtime_view() -> None:
    """Each permitted method is on the consumer and the view, async exactly where aiokafka's is."""
    names = [n for n, v in vars(RebalanceConsumer).items() if callable(v) and not n.startswith("_")]
    assert len(names) == 17
    for name in names:
        protocol_async = inspect.iscoroutinefunction(getattr(RebalanceConsumer, name))
        assert inspect.iscoroutinefunction(getattr(AIOKafkaConsumer, name)) == protocol_async, name
        assert callable(getattr(AIOKafkaRebalanceView, name)), name
    assert not OMITTED & set(names)
