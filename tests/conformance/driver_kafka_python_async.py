"""Conformance driver for kafka-python 3's async listeners: rebalance_guard.kafka_python's
AsyncRebalanceListener, whose callbacks kafka-python awaits on its IO loop with the async
view (the calls that block there awaited, each run on a worker thread).

The members and their polling are kafka-python's (:mod:`.driver_kafka_python`); only the
listener and the view differ. The suite's scripts await only their Ops, so they run on
kafka-python's own loop unchanged. kafka-python 2 has no IO loop: every cell is skipped
there, with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable

from rebalance_guard.kafka_python import AsyncRebalanceListener, set_rebalance_listener

from tests.conformance.driver import TP, AsyncScriptListener, NotOffered, ThreadedDriver, keys
from tests.conformance.driver_kafka_python import (
    KafkaPythonDriver,
    KafkaPythonMember,
    KafkaPythonOps,
    _tp,
)
from tests.integration.kafka_python_support import KP3, make_consumer


class KafkaPythonAsyncOps(KafkaPythonOps):
    """The sync driver's Ops, awaiting what the async view offers as coroutines."""

    async def commit(self) -> None:
        await self.raw.commit()

    async def commit_offsets(self, offsets: dict[TP, int]) -> None:
        from kafka.structs import OffsetAndMetadata

        await self.raw.commit({_tp(k): OffsetAndMetadata(v, "", -1) for k, v in offsets.items()})

    async def committed(self, tp: TP) -> int | None:
        result: int | None = await self.raw.committed(_tp(tp))
        return result

    async def position(self, tp: TP) -> int | None:
        result: int | None = await self.raw.position(_tp(tp))
        return result

    async def beginning_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        found = await self.raw.beginning_offsets(list(map(_tp, tps)))
        return {(k.topic, k.partition): v for k, v in found.items()}

    async def end_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        found = await self.raw.end_offsets(list(map(_tp, tps)))
        return {(k.topic, k.partition): v for k, v in found.items()}

    async def offsets_for_times(self, times: dict[TP, int]) -> dict[TP, int | None]:
        found = await self.raw.offsets_for_times({_tp(k): v for k, v in times.items()})
        return {(k.topic, k.partition): None if v is None else v.offset for k, v in found.items()}

    async def partitions_for_topic(self, topic: str) -> set[int]:
        return set(await self.raw.partitions_for_topic(topic))

    async def assignment(self) -> set[TP]:
        return keys(self.raw.assignment())

    async def group_metadata(self) -> object:
        if not KP3:
            raise NotOffered("kafka-python 2 has no group_metadata()")
        return self.raw.group_metadata()


class _Listener(AsyncScriptListener, AsyncRebalanceListener):
    """The suite's async listener as a rebalance_guard.kafka_python AsyncRebalanceListener."""


class KafkaPythonAsyncMember(KafkaPythonMember):
    def _open(self) -> None:
        self.consumer = make_consumer(self.bootstrap, self.group, self.protocol)
        set_rebalance_listener(self.consumer, _Listener(self, KafkaPythonAsyncOps))
        self.consumer.subscribe(self.topics)


class KafkaPythonAsyncDriver(ThreadedDriver):
    name = "kafka_python_async"
    member_class = KafkaPythonAsyncMember

    def skip_reason(self, protocol: str) -> str | None:
        if not KP3:
            return (
                "kafka-python 2 has no IO loop to await listeners on: AsyncRebalanceListener "
                "is refused there"
            )
        return KafkaPythonDriver().skip_reason(protocol)


DRIVER = KafkaPythonAsyncDriver()
