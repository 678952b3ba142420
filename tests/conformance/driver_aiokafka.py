"""Conformance driver for aiokafka: AIOKafkaConsumer + rebalance_guard.aiokafka.

Each member runs its own event loop on its polling thread (aiokafka's coordination runs
while ``getmany()`` is awaited, which is almost all the time).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from aiokafka.structs import TopicPartition
from rebalance_guard.aiokafka import RebalanceListener, set_rebalance_listener

from tests.conformance.driver import (
    NO_CONSUMER_PROTOCOL,
    TP,
    AsyncScriptListener,
    LoopMember,
    NotOffered,
    Record,
    ThreadedDriver,
    keys,
)
from tests.integration.aiokafka_support import make_consumer

COOPERATIVE_REASON = (
    "aiokafka 0.14 implements only the eager protocol: no cooperative-sticky assignor and no "
    "incremental callbacks (aio-libs/aiokafka#1126)"
)


def _tp(key: TP) -> TopicPartition:
    return TopicPartition(*key)


class AiokafkaOps:
    def __init__(self, view: Any) -> None:
        self.raw = view

    async def commit(self) -> None:
        await self.raw.commit()

    async def commit_offsets(self, offsets: dict[TP, int]) -> None:
        await self.raw.commit({_tp(k): v for k, v in offsets.items()})

    async def commit_async(self) -> None:
        raise NotOffered("aiokafka's commit() is a coroutine; it has no fire-and-forget commit")

    async def committed(self, tp: TP) -> int | None:
        result: int | None = await self.raw.committed(_tp(tp))
        return result

    async def position(self, tp: TP) -> int | None:
        result: int | None = await self.raw.position(_tp(tp))
        return result

    async def seek(self, tp: TP, offset: int) -> None:
        self.raw.seek(_tp(tp), offset)

    async def seek_to_beginning(self, tps: Iterable[TP]) -> None:
        await self.raw.seek_to_beginning(*map(_tp, tps))

    async def seek_to_end(self, tps: Iterable[TP]) -> None:
        await self.raw.seek_to_end(*map(_tp, tps))

    async def assignment(self) -> set[TP]:
        return keys(self.raw.assignment())

    async def pause(self, tps: Iterable[TP]) -> None:
        self.raw.pause(*map(_tp, tps))

    async def resume(self, tps: Iterable[TP]) -> None:
        self.raw.resume(*map(_tp, tps))

    async def paused(self) -> set[TP]:
        return keys(self.raw.paused())

    async def beginning_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        found = await self.raw.beginning_offsets([_tp(tp) for tp in tps])
        return {(k.topic, k.partition): v for k, v in found.items()}

    async def end_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        found = await self.raw.end_offsets([_tp(tp) for tp in tps])
        return {(k.topic, k.partition): v for k, v in found.items()}

    async def offsets_for_times(self, times: dict[TP, int]) -> dict[TP, int | None]:
        found = await self.raw.offsets_for_times({_tp(k): v for k, v in times.items()})
        return {(k.topic, k.partition): None if v is None else v.offset for k, v in found.items()}

    async def partitions_for_topic(self, topic: str) -> set[int]:
        return set(self.raw.partitions_for_topic(topic) or ())

    async def group_metadata(self) -> object:
        raise NotOffered("aiokafka exposes no group metadata (generation, member id) accessor")


class _Listener(AsyncScriptListener, RebalanceListener):
    """The suite's async listener as a rebalance_guard.aiokafka listener."""


class AiokafkaMember(LoopMember):
    partition_type = TopicPartition

    async def _start(self) -> None:
        self.consumer = make_consumer(self.bootstrap, self.group)
        set_rebalance_listener(self.consumer, _Listener(self, AiokafkaOps))
        self.consumer.subscribe(self.topics)
        await self.consumer.start()

    def _poll_once(self) -> list[Record]:
        batches = self.loop.run_until_complete(self.consumer.getmany(timeout_ms=100))
        return [
            Record((tp.topic, tp.partition), r.offset, int(r.value))
            for tp, batch in batches.items()
            for r in batch
        ]

    def _shutdown(self) -> Any:
        return self.consumer.stop()


class AiokafkaDriver(ThreadedDriver):
    name = "aiokafka"
    member_class = AiokafkaMember

    def skip_reason(self, protocol: str) -> str | None:
        if protocol == "consumer":
            return NO_CONSUMER_PROTOCOL.format(client="aiokafka 0.14")
        return COOPERATIVE_REASON if protocol == "cooperative" else None


DRIVER = AiokafkaDriver()
