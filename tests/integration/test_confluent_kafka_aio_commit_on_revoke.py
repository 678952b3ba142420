"""Issue 10, item 3 (AIOConsumer): commit on revoke through the view, nothing lost or repeated.

The AIOConsumer counterpart of test_confluent_kafka_commit_on_revoke.py: three consumers in
one group go through four assignments (first member, two joins, one leave) while a producer
keeps writing numbered messages. Auto-commit is off: the only commits are the listener's, in
an ``async def on_partitions_revoked`` (and so in ``close()``), either a BARE
``await consumer.commit()`` (KIP-1306's own example: the consumed positions, synchronously)
or explicit offsets. Without them the next owner would restart from the beginning.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest
from confluent_kafka import Message, Producer, TopicPartition
from rebalance_guard.confluent_kafka_aio import (
    AIOConsumer,
    RebalanceConsumer,
    RebalanceListener,
    set_rebalance_listener,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_aio_support import closing, drain, poll_until
from tests.integration.confluent_kafka_support import PROTOCOLS, config, number
from tests.integration.test_confluent_kafka_commit_on_revoke import (
    STALL_S,
    FetchStalled,
    _assert_none_twice,
)

PARTITIONS = 6
MAX_MESSAGES = 20_000  # a slow rebalance on a busy machine must not leave a huge backlog


class CommitOnRevoke(RebalanceListener):
    """Commits this member's progress on the partitions it is losing, bare or explicitly."""

    def __init__(self, topic: str, bare: bool) -> None:
        self.topic = topic
        self.bare = bare
        self.processed: dict[int, int] = {}  # partition -> next offset to process
        self.commits: list[list[TopicPartition]] = []
        self.events: list[str] = []

    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append("assigned")

    async def on_partitions_revoked(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        self.events.append("revoked")
        if self.bare:
            self.commits.append(await consumer.commit())  # synchronous on the view
            return
        offsets = [
            TopicPartition(self.topic, p.partition, self.processed.pop(p.partition))
            for p in partitions
            if p.partition in self.processed
        ]
        if offsets:
            self.commits.append(await consumer.commit(offsets=offsets))


@pytest.mark.parametrize("commit", ["bare", "offsets"])
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_every_message_processed_once_across_rebalances(
    broker: Broker, protocol: str, commit: str
) -> None:
    asyncio.run(_scenario(broker, protocol, commit))


async def _scenario(broker: Broker, protocol: str, commit: str) -> None:
    topic = broker.create_topic(PARTITIONS)
    group = broker.group()
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
    produced = 0
    processed: list[int] = []
    distinct: set[int] = set()
    members: dict[AIOConsumer, CommitOnRevoke] = {}
    active: list[AIOConsumer] = []

    async def join() -> None:
        consumer = AIOConsumer(config(broker, group, protocol))
        listener = CommitOnRevoke(topic, bare=commit == "bare")
        set_rebalance_listener(consumer, listener)
        await consumer.subscribe([topic])
        members[consumer] = listener
        active.append(consumer)

    def process(consumer: AIOConsumer, message: Message[Any, Any]) -> None:
        processed.append(number(message))
        distinct.add(processed[-1])
        members[consumer].processed[message.partition() or 0] = (message.offset() or 0) + 1

    async def balanced() -> bool:
        """Keep producing; true once every active member owns part of a complete assignment."""
        nonlocal produced
        for _ in range(5 if produced < MAX_MESSAGES else 0):
            producer.produce(topic, str(produced).encode(), partition=produced % PARTITIONS)
            produced += 1
        producer.poll(0)
        owned = [{p.partition for p in await c.assignment()} for c in active]
        return all(owned) and sum(map(len, owned)) == PARTITIONS == len(set().union(*owned))

    def rebalanced() -> Callable[[], Awaitable[bool]]:
        before = sum(len(li.events) for li in members.values())

        async def done() -> bool:
            return await balanced() and sum(len(li.events) for li in members.values()) > before

        return done

    await join()
    async with closing(members):
        await poll_until(active, balanced, process, what="first member assigned")
        for change in ("join", "join", "leave"):
            if change == "join":
                await join()
            else:
                leaving = active.pop(0)
                await leaving.close()  # its revoke callback commits what it processed
            await poll_until(active, rebalanced(), process, what=f"rebalance after {change}")
        assert producer.flush(30) == 0
        try:
            await drain(active, lambda: len(distinct) >= produced, process, stall_s=STALL_S)
        except AssertionError as exc:
            _assert_none_twice(processed)  # what was processed must still be exactly once
            missing = sorted(set(range(produced)) - distinct)
            first_missing = {n % PARTITIONS: n // PARTITIONS for n in reversed(missing)}
            positions = [
                {p.partition: p.offset for p in await c.position(await c.assignment())}
                for c in active
            ]
            raise FetchStalled(
                f"{exc}: {len(missing)} of {produced} never delivered, first missing offset per "
                f"partition {first_missing}; positions {positions}; "
                f"callbacks {[li.events for li in members.values()]}"
            ) from None

    _assert_none_twice(processed)
    assert sorted(processed) == list(range(produced))
    commits = [c for li in members.values() for c in li.commits if c]
    assert len(commits) >= 3, [li.commits for li in members.values()]
    assert produced > 100


class _FakeMember:
    """An AIOConsumer with ``backlog`` messages ready; an idle one makes poll/consume wait."""

    def __init__(self, backlog: int) -> None:
        self.left = backlog

    async def poll(self, timeout: float) -> Any:
        batch = await self.consume(1, timeout)
        return batch[0] if batch else None

    async def consume(self, num_messages: int = 1, timeout: float = -1) -> list[Any]:
        if not self.left:
            await asyncio.sleep(timeout)
            return []
        count = min(num_messages, self.left)
        self.left -= count
        return [_FakeMessage() for _ in range(count)]


class _FakeMessage:
    def error(self) -> None:
        return None


def test_drain_is_not_paced_by_an_idle_member() -> None:
    """Why the eager cells used to time out: aio poll_until gathers one poll(0.2) per member,
    so an idle member paces the round at 5 messages/s; drain() takes them in batches."""

    async def scenario() -> None:
        got: list[Any] = []
        idle, busy = _FakeMember(0), _FakeMember(600)
        both = cast(list[AIOConsumer], [idle, busy])
        with pytest.raises(AssertionError, match="not reached within 3 s"):
            await poll_until(both, lambda: len(got) >= 600, lambda c, m: got.append(m), timeout=3)
        assert 10 <= len(got) <= 20, len(got)  # ~5 a second
        started = time.monotonic()
        await drain(both, lambda: len(got) >= 600, lambda c, m: got.append(m), stall_s=STALL_S)
        assert len(got) == 600 and time.monotonic() - started < 2
        with pytest.raises(AssertionError, match="nothing delivered for 0 s"):
            await drain(both[:1], lambda: False, lambda c, m: None, stall_s=0.3)

    asyncio.run(scenario())
