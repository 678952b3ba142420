"""Shared helpers for the AIOConsumer tests against the real broker (no tests here).

Configuration and production are the sync confluent helpers'; polling is asynchronous:
every consumer polls at once (``asyncio.gather``), each in its own executor, while the
event loop runs the rebalance callbacks.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from confluent_kafka import Message
from confluent_kafka.aio import AIOConsumer

from tests.integration.confluent_kafka_support import DEADLINE_S

MessageHandler = Callable[[AIOConsumer, "Message[Any, Any]"], None]


async def poll_until(
    consumers: Sequence[AIOConsumer],
    done: Callable[[], bool | Awaitable[bool]],
    on_message: MessageHandler = lambda c, m: None,
    timeout: float = DEADLINE_S,
    what: str = "condition",
) -> None:
    """Poll every consumer (concurrently) until ``done()`` (may be async); fail after ``timeout``
    seconds."""

    async def poll(consumer: AIOConsumer) -> None:
        message = await consumer.poll(0.2)
        if message is not None and message.error() is None:
            on_message(consumer, message)

    deadline = time.monotonic() + timeout
    while not await _finished(done):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout:.0f} s")
        await asyncio.gather(*(poll(consumer) for consumer in list(consumers)))


async def drain(
    consumers: Sequence[AIOConsumer],
    done: Callable[[], bool | Awaitable[bool]],
    on_message: MessageHandler,
    stall_s: float,
) -> None:
    """Deliver everything left, in batches; fail only when NOTHING arrives for ``stall_s``.

    The async twin of test_confluent_kafka_commit_on_revoke.drain(). Not ``poll_until``: each
    round there waits for every member's ``poll(0.2)`` (``gather``), so once one member has
    nothing left a round costs 0.2 s and the other drains at 5 messages/s. Here each member
    takes up to 500 per ``consume(timeout=0.05)`` and there is no total deadline.
    """

    async def take(consumer: AIOConsumer) -> int:
        delivered = 0
        for message in await consumer.consume(num_messages=500, timeout=0.05):
            if message.error() is None:
                on_message(consumer, message)
                delivered += 1
        return delivered

    last_delivery = time.monotonic()
    while not await _finished(done):
        if sum(await asyncio.gather(*(take(consumer) for consumer in list(consumers)))):
            last_delivery = time.monotonic()
        elif time.monotonic() - last_delivery > stall_s:
            raise AssertionError(f"nothing delivered for {stall_s:.0f} s")


async def _finished(done: Callable[[], bool | Awaitable[bool]]) -> bool:
    result = done()
    return await result if inspect.isawaitable(result) else result


@asynccontextmanager
async def closing(consumers: Iterable[AIOConsumer]) -> AsyncIterator[None]:
    """Close the consumers afterwards, however the block ends (read at the end: may grow)."""
    try:
        yield
    finally:
        for consumer in consumers:
            try:
                await consumer.close()
            except RuntimeError as exc:
                if "closed" not in str(exc):  # "Consumer closed": closed by the test itself
                    raise
