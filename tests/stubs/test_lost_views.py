"""During ``on_partitions_lost`` the lost partitions are already gone (KIP-1306, DESIGN rule 7).

Every client still lists them while the callback runs (Java's coordinator too); the view hides
them. The harnesses list them during the callback as the real clients do, so these tests run
the runtime views' own hiding: ``assignment()`` (and ``paused()``) leave them out,
``position()`` treats them as unassigned, a bare ``commit()`` commits nothing (every client
loses the whole assignment at once, and would fail to commit it), and an explicit commit of
them still reaches the client, which refuses it. The same contract on the real broker:
tests/conformance/test_lost.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

P0, P1 = ("orders", 0), ("orders", 1)
KAFKA_PYTHON = pytest.mark.kafka_python  # run again under kafka-python 2.x by .ci/run


class Seen:
    """What one lost callback observed through its view."""

    def __init__(self) -> None:
        self.assignment: set[tuple[str, int]] = set()
        self.paused: set[tuple[str, int]] | None = None
        self.position: object = None  # the answer, or the exception
        self.bare_commit: object = None  # the result, or the exception


def keys(partitions: Any) -> set[tuple[str, int]]:
    return {(p.topic, p.partition) for p in partitions}


# -- kafka-python --------------------------------------------------------------------------


def _kafka_python(lost: list[tuple[str, int]] | None) -> tuple[Seen, Any]:
    from kafka.structs import TopicPartition
    from rebalance_guard.kafka_python import RebalanceListener
    from rebalance_guard.testing.kafka_python import ListenerHarness

    seen = Seen()

    class Listener(RebalanceListener):
        def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            seen.assignment, seen.paused = keys(consumer.assignment()), keys(consumer.paused())
            try:
                seen.position = consumer.position(TopicPartition(*P0))
            except Exception as exc:
                seen.position = exc
            try:
                seen.bare_commit = consumer.commit()
            except Exception as exc:
                seen.bare_commit = exc

    harness = ListenerHarness(Listener())
    harness.assign([TopicPartition(*P0), TopicPartition(*P1)])
    harness.set_positions({TopicPartition(*P0): 5, TopicPartition(*P1): 7})
    harness.consumer.pause(TopicPartition(*P0), TopicPartition(*P1))
    harness.lose(None if lost is None else [TopicPartition(*k) for k in lost])
    return seen, harness


@KAFKA_PYTHON
def test_kafka_python_lost_partitions_are_gone_from_the_view() -> None:
    from kafka.errors import IllegalStateError

    seen, harness = _kafka_python(None)
    assert seen.assignment == set() and seen.paused == set()
    assert isinstance(seen.position, IllegalStateError), seen.position
    assert "orders-0 was lost" in str(seen.position)
    assert seen.bare_commit is None and harness.commits == []


@KAFKA_PYTHON
def test_kafka_python_hides_only_the_lost_partitions() -> None:
    seen, _ = _kafka_python([P0])
    assert seen.assignment == {P1} and seen.paused == {P1}


@KAFKA_PYTHON
def test_kafka_python_explicit_commit_of_lost_partitions_fails_in_the_client() -> None:
    from kafka.errors import CommitFailedError
    from kafka.structs import OffsetAndMetadata, TopicPartition
    from rebalance_guard.kafka_python import RebalanceListener
    from rebalance_guard.testing.kafka_python import ListenerHarness

    class Listener(RebalanceListener):
        def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            consumer.commit({p: OffsetAndMetadata(5, "", -1) for p in partitions})

    harness = ListenerHarness(Listener())
    harness.assign([TopicPartition(*P0)])
    with pytest.raises(CommitFailedError):
        harness.lose()
    assert harness.commits == []


# -- aiokafka ------------------------------------------------------------------------------


def _aiokafka(lost: list[tuple[str, int]] | None) -> tuple[Seen, Any]:
    from aiokafka.structs import TopicPartition
    from rebalance_guard.aiokafka import RebalanceListener
    from rebalance_guard.testing.aiokafka import ListenerHarness

    seen = Seen()

    class Listener(RebalanceListener):
        async def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            seen.assignment, seen.paused = keys(consumer.assignment()), keys(consumer.paused())
            try:
                seen.position = await consumer.position(TopicPartition(*P0))
            except Exception as exc:
                seen.position = exc
            try:
                seen.bare_commit = await consumer.commit()
            except Exception as exc:
                seen.bare_commit = exc

    harness = ListenerHarness(Listener())

    async def steps() -> None:
        await harness.assign([TopicPartition(*P0), TopicPartition(*P1)])
        harness.set_positions({TopicPartition(*P0): 5, TopicPartition(*P1): 7})
        harness.consumer.pause(TopicPartition(*P0), TopicPartition(*P1))
        await harness.lose(None if lost is None else [TopicPartition(*k) for k in lost])

    asyncio.run(steps())
    return seen, harness


def test_aiokafka_lost_partitions_are_gone_from_the_view() -> None:
    from aiokafka.errors import IllegalStateError

    seen, harness = _aiokafka(None)
    assert seen.assignment == set() and seen.paused == set()
    assert isinstance(seen.position, IllegalStateError), seen.position
    assert seen.bare_commit is None and harness.commits == []


def test_aiokafka_hides_only_the_lost_partitions() -> None:
    seen, _ = _aiokafka([P0])
    assert seen.assignment == {P1} and seen.paused == {P1}


def test_aiokafka_explicit_commit_of_lost_partitions_fails_in_the_client() -> None:
    from aiokafka.errors import CommitFailedError
    from aiokafka.structs import TopicPartition
    from rebalance_guard.aiokafka import RebalanceListener
    from rebalance_guard.testing.aiokafka import ListenerHarness

    class Listener(RebalanceListener):
        async def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            await consumer.commit({p: 5 for p in partitions})

    harness = ListenerHarness(Listener())

    async def steps() -> None:
        await harness.assign([TopicPartition(*P0)])
        with pytest.raises(CommitFailedError):
            await harness.lose()

    asyncio.run(steps())
    assert harness.commits == []


# -- confluent-kafka (Consumer and AIOConsumer) ----------------------------------------------


def _confluent(lost: list[tuple[str, int]] | None) -> tuple[Seen, Any]:
    from confluent_kafka import TopicPartition
    from rebalance_guard.confluent_kafka import RebalanceListener
    from rebalance_guard.testing.confluent_kafka import ListenerHarness

    seen = Seen()

    class Listener(RebalanceListener):
        def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            seen.assignment = keys(consumer.assignment())
            try:
                seen.position = consumer.position([TopicPartition(*P0)])[0].offset
            except Exception as exc:
                seen.position = exc
            try:
                seen.bare_commit = consumer.commit()
            except Exception as exc:
                seen.bare_commit = exc

    harness = ListenerHarness(Listener())
    harness.assign([TopicPartition(*P0), TopicPartition(*P1)])
    harness.set_positions({TopicPartition(*P0): 5, TopicPartition(*P1): 7})
    harness.lose(None if lost is None else [TopicPartition(*k) for k in lost])
    return seen, harness


def _confluent_aio(lost: list[tuple[str, int]] | None) -> tuple[Seen, Any]:
    from confluent_kafka import TopicPartition
    from rebalance_guard.confluent_kafka_aio import RebalanceListener
    from rebalance_guard.testing.confluent_kafka_aio import ListenerHarness

    seen = Seen()

    class Listener(RebalanceListener):
        async def on_partitions_lost(self, partitions: Any, consumer: Any) -> None:
            seen.assignment = keys(await consumer.assignment())
            try:
                seen.position = (await consumer.position([TopicPartition(*P0)]))[0].offset
            except Exception as exc:
                seen.position = exc
            try:
                seen.bare_commit = await consumer.commit()
            except Exception as exc:
                seen.bare_commit = exc

    harness = ListenerHarness(Listener())

    async def steps() -> None:
        await harness.assign([TopicPartition(*P0), TopicPartition(*P1)])
        harness.set_positions({TopicPartition(*P0): 5, TopicPartition(*P1): 7})
        await harness.lose(None if lost is None else [TopicPartition(*k) for k in lost])

    asyncio.run(steps())
    return seen, harness


CONFLUENT = pytest.mark.parametrize("run", [_confluent, _confluent_aio], ids=["sync", "aio"])


@CONFLUENT
def test_confluent_lost_partitions_are_gone_from_the_view(run: Any) -> None:
    seen, harness = run(None)
    assert seen.assignment == set()
    # not assigned any more: librdkafka's _STATE, as kafka-python's IllegalStateError
    assert isinstance(seen.position, KafkaException), seen.position
    assert seen.position.args[0].code() == KafkaError._STATE
    assert "was lost" in str(seen.position)
    assert seen.bare_commit == [] and harness.commits == []


@CONFLUENT
def test_confluent_hides_only_the_lost_partitions(run: Any) -> None:
    seen, harness = run([P0])
    assert seen.assignment == {P1}
    # P1 is still listed, so the bare commit reaches librdkafka, which refuses a fenced member
    assert isinstance(seen.bare_commit, KafkaException) and harness.commits == []
