"""``rebalance_guard.chain_callback``: which listener a chaining callback hands the view to.

The rule is the adapters' own for a registered listener: a rebalance_guard listener's method
that takes the view gets ``(partitions, view)``; anything else (the clients' own listener
classes, duck-typed hooks, a rebalance_guard listener's one-argument method) is called with the
partitions alone, exactly as the un-migrated code called it. Run on a real rebalance by
tests/integration/test_migrated_shapes_on_broker_9.py; here the choice itself, per client."""

from __future__ import annotations

import asyncio
from typing import Any

import aiokafka.abc
import kafka
import pytest
from rebalance_guard import aiokafka as guard_aiokafka
from rebalance_guard import chain_callback
from rebalance_guard import confluent_kafka as guard_confluent
from rebalance_guard import kafka_python as guard_kafka_python

VIEW = object()
PARTS = {"tp"}


class Legacy(kafka.ConsumerRebalanceListener):
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.calls.append((revoked,))

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.calls.append((assigned,))


class Migrated(guard_kafka_python.RebalanceListener):
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_partitions_revoked(self, revoked: Any, consumer: Any) -> None:  # type: ignore[override]
        self.calls.append((revoked, consumer))


class MigratedSubclassOneArg(guard_kafka_python.RebalanceListener):
    """A rebalance_guard listener keeping a legacy one-argument method (the adapters call it
    with the partitions alone; so does the chain)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_partitions_assigned(self, assigned: Any) -> None:  # type: ignore[override]
        self.calls.append((assigned,))


class Hooks:
    """A duck-typed hook object whose method would take a second argument: it was called
    with one before the migration, and still is."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_partitions_revoked(self, revoked: Any, consumer: Any = "unset") -> None:
        self.calls.append((revoked, consumer))


def test_a_client_listener_gets_the_partitions_alone() -> None:
    legacy = Legacy()
    chain_callback(legacy, "on_partitions_revoked", PARTS, VIEW)
    chain_callback(legacy, "on_partitions_assigned", PARTS, VIEW)
    assert legacy.calls == [(PARTS,), (PARTS,)]


def test_a_migrated_listener_gets_the_view() -> None:
    migrated = Migrated()
    chain_callback(migrated, "on_partitions_revoked", PARTS, VIEW)
    assert migrated.calls == [(PARTS, VIEW)]


def test_the_bases_default_lost_goes_to_revoked_with_the_view() -> None:
    migrated = Migrated()
    chain_callback(migrated, "on_partitions_lost", PARTS, VIEW)
    assert migrated.calls == [(PARTS, VIEW)]


def test_a_one_argument_method_of_a_migrated_listener_gets_the_partitions_alone() -> None:
    kept = MigratedSubclassOneArg()
    chain_callback(kept, "on_partitions_assigned", PARTS, VIEW)
    assert kept.calls == [(PARTS,)]


def test_a_duck_typed_hook_is_called_as_before() -> None:
    hooks = Hooks()
    chain_callback(hooks, "on_partitions_revoked", PARTS, VIEW)
    assert hooks.calls == [(PARTS, "unset")]


def test_a_missing_method_raises_as_the_direct_call_did() -> None:
    with pytest.raises(AttributeError):
        chain_callback(Hooks(), "on_partitions_assigned", PARTS, VIEW)


@pytest.mark.parametrize(
    "base",
    [guard_aiokafka.RebalanceListener, guard_kafka_python.AsyncRebalanceListener],
    ids=["aiokafka", "kafka-python-async"],
)
def test_an_async_migrated_listener_returns_its_coroutine_with_the_view(base: type) -> None:
    seen: list[tuple[Any, ...]] = []

    class Async(base):  # type: ignore[misc, valid-type]
        async def on_partitions_assigned(self, assigned: Any, consumer: Any) -> None:
            seen.append((assigned, consumer))

    asyncio.run(chain_callback(Async(), "on_partitions_assigned", PARTS, VIEW))
    assert seen == [(PARTS, VIEW)]


def test_an_aiokafka_client_listener_returns_its_coroutine_without_the_view() -> None:
    seen: list[tuple[Any, ...]] = []

    class Client(aiokafka.abc.ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked: Any) -> None:
            seen.append((revoked,))

        async def on_partitions_assigned(self, assigned: Any) -> None:
            seen.append((assigned,))

    asyncio.run(chain_callback(Client(), "on_partitions_revoked", PARTS, VIEW))
    assert seen == [(PARTS,)]


def test_a_confluent_listener_gets_the_view() -> None:
    seen: list[tuple[Any, ...]] = []

    class Listener(guard_confluent.RebalanceListener):
        def on_partitions_assigned(self, partitions: Any, consumer: Any) -> None:
            seen.append((partitions, consumer))

    chain_callback(Listener(), "on_partitions_assigned", PARTS, VIEW)
    assert seen == [(PARTS, VIEW)]
