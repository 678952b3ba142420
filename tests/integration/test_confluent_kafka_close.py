"""close() right after a rebalance: the revocation still commits what the member processed.

librdkafka's ``close()`` while an assignment callback is pending (the member was assigned,
the application has not polled since: what happens to anyone closing right after a
cooperative rebalance) turns that pending ``incremental_assign()`` into an unassignment,
leaves the group, and only then runs the revocation, where nothing is assigned any more: a
bare ``commit()`` commits nothing and the next owner repeats what the member processed since
its last commit (``ClosingRevocation`` in rebalance_guard/_confluent_common.py). The adapters
revoke through the listener before closing. Here a member processes messages after its last
commit, a second member completes the rebalance while the first does not poll, and the
first closes: its bare commit on revoke must have committed everything it processed.
Both confluent APIs, every protocol. Without the adapters' revocation before close() the
cooperative cells fail on both APIs (committed 29 where 39 were processed, 2026-11-26).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from confluent_kafka import Consumer as PlainConsumer
from confluent_kafka import TopicPartition
from rebalance_guard import confluent_kafka as sync_guard
from rebalance_guard import confluent_kafka_aio as aio_guard

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_support import (
    DEADLINE_S,
    PROTOCOLS,
    config,
    number,
    partitions_of,
    produce,
)

PARTITIONS = 4
T = TypeVar("T")


class Ownership:
    """What the listener was told it owns, and any revocation of a partition it never owned."""

    def __init__(self) -> None:
        self.revocations = 0
        self.owned: set[int] = set()
        self.never_owned: set[int] = set()

    def assigned(self, partitions: list[TopicPartition]) -> None:
        self.owned |= {p.partition for p in partitions}

    def revoked(self, partitions: list[TopicPartition]) -> None:
        self.revocations += 1
        gone = {p.partition for p in partitions}
        self.never_owned |= gone - self.owned
        self.owned -= gone


class BareCommitOnRevoke(Ownership, sync_guard.RebalanceListener):
    def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: sync_guard.RebalanceConsumer
    ) -> None:
        self.assigned(partitions)

    def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: sync_guard.RebalanceConsumer
    ) -> None:
        self.revoked(partitions)
        consumer.commit()


class AsyncBareCommitOnRevoke(Ownership, aio_guard.RebalanceListener):
    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: aio_guard.RebalanceConsumer
    ) -> None:
        self.assigned(partitions)

    async def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: aio_guard.RebalanceConsumer
    ) -> None:
        self.revoked(partitions)
        await consumer.commit()


class Member:
    """One consumer of either API driven synchronously (an AIOConsumer on ``loop``)."""

    def __init__(self, api: str, conf: dict[str, Any], topic: str, loop: Any) -> None:
        self.api, self.loop = api, loop
        self.next_offsets: dict[int, int] = {}  # partition -> after the last processed
        self.processed = 0
        if api == "Consumer":
            self.listener: Any = BareCommitOnRevoke()
            self.consumer: Any = sync_guard.Consumer(conf)
            sync_guard.set_rebalance_listener(self.consumer, self.listener)
            self.consumer.subscribe([topic])
        else:
            self.listener = AsyncBareCommitOnRevoke()
            self.consumer = self._run(self._open_aio(conf, topic))

    async def _open_aio(self, conf: dict[str, Any], topic: str) -> Any:
        consumer = aio_guard.AIOConsumer(conf)
        aio_guard.set_rebalance_listener(consumer, self.listener)
        await consumer.subscribe([topic])
        return consumer

    def _run(self, result: Coroutine[Any, Any, T] | T) -> T:
        if self.api == "Consumer":
            return result  # type: ignore[return-value]
        return self.loop.run_until_complete(result)  # type: ignore[no-any-return]

    def poll(self) -> None:
        message = self._run(self.consumer.poll(0.1))
        if message is not None and message.error() is None:
            self.processed += 1
            self.next_offsets[message.partition()] = message.offset() + 1
            number(message)

    def assignment(self) -> set[int]:
        return partitions_of(self._run(self.consumer.assignment()))

    def close(self) -> None:
        self._run(self.consumer.close())


def _until(condition: Callable[[], bool], step: Callable[[], None], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"{what} not reached within {DEADLINE_S:.0f} s"
        step()


def _committed(broker: Broker, group: str, topic: str) -> dict[int, int]:
    reader = PlainConsumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
    try:
        found = reader.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], 30)
        return {tp.partition: tp.offset for tp in found}
    finally:
        reader.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("api", ["Consumer", "AIOConsumer"])
def test_close_right_after_a_rebalance_commits_what_was_processed(
    broker: Broker, api: str, protocol: str
) -> None:
    topic = broker.create_topic(PARTITIONS)
    group = broker.group()
    produce(broker, topic, 400, PARTITIONS)
    conf = config(broker, group, protocol)
    loop = asyncio.new_event_loop()
    first = second = None
    try:
        first = Member(api, conf, topic, loop)
        _until(lambda: first.processed >= 20, first.poll, "the first member processing")
        second = Member(api, conf, topic, loop)

        def both() -> None:
            first.poll()
            second.poll()

        _until(lambda: first.listener.revocations >= 1, both, "the first member's revocation")
        after_commit = first.processed
        _until(lambda: first.processed >= after_commit + 10, first.poll, "processing after it")
        # the first member stops polling while the group completes the rebalance
        _until(lambda: bool(second.assignment()), second.poll, "the second member's assignment")
        moved = second.assignment()
        processed = {p: o for p, o in first.next_offsets.items() if p not in moved}
        first.close()
        first = None
        committed = _committed(broker, group, topic)
        assert processed, "the first member kept no partition it had processed"
        for partition, offset in processed.items():
            assert committed[partition] == offset, (partition, committed, processed)
    finally:
        for member in (first, second):
            if member is not None:
                member.close()
        loop.close()


def _broker_owners(broker: Broker, group: str) -> list[set[int]]:
    """Each member's assignment as the group coordinator holds it (classic and KIP-848)."""
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    (description,) = (f.result(30) for f in admin.describe_consumer_groups([group]).values())
    return [{tp.partition for tp in m.assignment.topic_partitions} for m in description.members]


@pytest.mark.parametrize("protocol", ["cooperative", "consumer"])
@pytest.mark.parametrize("api", ["Consumer", "AIOConsumer"])
def test_close_with_an_assignment_pending_tells_the_listener_nothing_of_it(
    broker: Broker, api: str, protocol: str
) -> None:
    """The group gives a member more partitions while it does not poll; it then closes.

    librdkafka's ``close()`` revokes the pending partitions too. The listener, never told
    they were assigned, must not be told they are revoked (Java's ``close()`` delivers no
    pending assignment), and its bare commit must not fail: telling it ran that commit
    inside ``close()``, where librdkafka answered ``_DESTROY`` (an AIOConsumer under KIP-848,
    CI 2026-11-26). Eager cannot get there: its rejoin waits for the application's poll.
    """
    topic = broker.create_topic(PARTITIONS)
    group = broker.group()
    produce(broker, topic, 40, PARTITIONS)
    conf = config(broker, group, protocol)
    loop = asyncio.new_event_loop()
    first = second = None
    try:
        first = Member(api, conf, topic, loop)
        second = Member(api, conf, topic, loop)

        def both() -> None:
            first.poll()
            second.poll()

        _until(lambda: bool(first.assignment() and second.assignment()), both, "both assigned")
        first.close()
        first = None
        every = set(range(PARTITIONS))
        # the second member does not poll: the coordinator hands it the first's partitions
        _until(
            lambda: _broker_owners(broker, group) == [every],
            lambda: time.sleep(0.2),
            "the coordinator giving the second member every partition",
        )
        time.sleep(2)  # the assignment's way from the coordinator into librdkafka's queue
        told = set(second.listener.owned)
        assert told != every, "the second member polled its new assignment: nothing pending"
        second.close()
        second_listener, second = second.listener, None
        assert second_listener.never_owned == set()
        assert second_listener.owned == set(), "what it was told it owned is revoked at close"
    finally:
        for member in (first, second):
            if member is not None:
                member.close()
        loop.close()
