"""Issue 10, item 1 on the broker (AIOConsumer): callback errors reach the poll caller.

An exception from an ``async def`` listener method travels from the event loop through
confluent's callback wrapper and librdkafka back out of ``await consumer.poll()``; a view
coroutine the callback forgot to await is :class:`NotAwaitedError` there. During
``consume()`` the adapter keeps the exception for the next call instead (confluent would drop
the batch's messages and later hang in ``close()``), so every message still arrives. Either
way the adapter has assigned first, so the consumer goes on reading.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from confluent_kafka import Message, TopicPartition
from confluent_kafka.aio import AIOConsumer
from rebalance_guard.confluent_kafka_aio import (
    NotAwaitedError,
    RebalanceConsumer,
    RebalanceListener,
    subscribe,
)

from tests.integration.broker import Broker
from tests.integration.confluent_kafka_aio_support import closing
from tests.integration.confluent_kafka_support import DEADLINE_S, config, produce


class Forgetful(RebalanceListener):
    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        consumer.pause(partitions)  # type: ignore[unused-coroutine]  # no await: never runs


class Failing(RebalanceListener):
    async def on_partitions_assigned(
        self, partitions: list[TopicPartition], consumer: RebalanceConsumer
    ) -> None:
        await asyncio.sleep(0)
        raise LookupError("offset store unreachable")


@pytest.mark.parametrize("call", ["poll", "consume"])
def test_callback_errors_are_raised_by_poll_and_consumption_goes_on(
    broker: Broker, call: str
) -> None:
    errors: dict[str, BaseException] = {}
    read: dict[str, list[int]] = {}

    async def scenario(name: str, listener: RebalanceListener) -> None:
        topic = broker.create_topic(1)
        produce(broker, topic, 5, 1)
        consumer = AIOConsumer(config(broker))
        await subscribe(consumer, [topic], listener)
        read[name] = []
        async with closing([consumer]):
            async with asyncio.timeout(DEADLINE_S):
                while len(read[name]) < 5 or name not in errors:
                    try:
                        messages: list[Message[Any, Any] | None] = (
                            [await consumer.poll(0.2)]
                            if call == "poll"
                            else await consumer.consume(10, 0.2)
                        )
                    except Exception as exc:
                        errors.setdefault(name, exc)
                        continue
                    for message in messages:
                        if message is not None and message.error() is None:
                            read[name].append(message.offset() or 0)

    async def both() -> None:
        await scenario("forgetful", Forgetful())
        await scenario("failing", Failing())

    asyncio.run(both())
    assert isinstance(errors["forgetful"], NotAwaitedError), errors
    assert "pause()" in str(errors["forgetful"])
    assert isinstance(errors["failing"], LookupError), errors
    assert read == {"forgetful": [0, 1, 2, 3, 4], "failing": [0, 1, 2, 3, 4]}
