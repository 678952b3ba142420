"""Conformance driver for kafka-python (2.x and 3.x) through rebalance_guard.kafka_python."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rebalance_guard.kafka_python import set_rebalance_listener

from tests.conformance.driver import (
    NO_CONSUMER_PROTOCOL,
    TP,
    Member,
    NotOffered,
    Record,
    SyncScriptListener,
    ThreadedDriver,
    keys,
)
from tests.integration.kafka_python_support import COOPERATIVE_REASON, KP3, make_consumer


def _partition(topic: str, partition: int) -> Any:
    from kafka import TopicPartition

    return TopicPartition(topic, partition)


def _tp(key: TP) -> Any:
    return _partition(*key)


class KafkaPythonOps:
    def __init__(self, view: Any) -> None:
        self.raw = view

    async def commit(self) -> None:
        self.raw.commit()

    async def commit_offsets(self, offsets: dict[TP, int]) -> None:
        from kafka.structs import OffsetAndMetadata

        self.raw.commit({_tp(k): OffsetAndMetadata(v, "", -1) for k, v in offsets.items()})

    async def commit_async(self) -> None:
        self.raw.commit_async()

    async def committed(self, tp: TP) -> int | None:
        result: int | None = self.raw.committed(_tp(tp))
        return result

    async def position(self, tp: TP) -> int | None:
        result: int | None = self.raw.position(_tp(tp))
        return result

    async def seek(self, tp: TP, offset: int) -> None:
        self.raw.seek(_tp(tp), offset)

    async def seek_to_beginning(self, tps: Iterable[TP]) -> None:
        self.raw.seek_to_beginning(*map(_tp, tps))

    async def seek_to_end(self, tps: Iterable[TP]) -> None:
        self.raw.seek_to_end(*map(_tp, tps))

    async def assignment(self) -> set[TP]:
        return keys(self.raw.assignment())

    async def pause(self, tps: Iterable[TP]) -> None:
        self.raw.pause(*map(_tp, tps))

    async def resume(self, tps: Iterable[TP]) -> None:
        self.raw.resume(*map(_tp, tps))

    async def paused(self) -> set[TP]:
        return keys(self.raw.paused())

    async def beginning_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        return {
            (k.topic, k.partition): v for k, v in self.raw.beginning_offsets(map(_tp, tps)).items()
        }

    async def end_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        return {
            (k.topic, k.partition): v for k, v in self.raw.end_offsets(list(map(_tp, tps))).items()
        }

    async def offsets_for_times(self, times: dict[TP, int]) -> dict[TP, int | None]:
        found = self.raw.offsets_for_times({_tp(k): v for k, v in times.items()})
        return {(k.topic, k.partition): None if v is None else v.offset for k, v in found.items()}

    async def partitions_for_topic(self, topic: str) -> set[int]:
        return set(self.raw.partitions_for_topic(topic))

    async def group_metadata(self) -> object:
        if not KP3:
            raise NotOffered("kafka-python 2 has no group_metadata()")
        return self.raw.group_metadata()


class KafkaPythonMember(Member):
    partition_type = staticmethod(_partition)

    def _open(self) -> None:
        self.consumer = make_consumer(self.bootstrap, self.group, self.protocol)
        set_rebalance_listener(self.consumer, SyncScriptListener(self, KafkaPythonOps))
        self.consumer.subscribe(self.topics)

    def _poll_once(self) -> list[Record]:
        batches = self.consumer.poll(timeout_ms=100)
        return [
            Record((tp.topic, tp.partition), r.offset, int(r.value))
            for tp, batch in batches.items()
            for r in batch
        ]

    def _close(self) -> None:
        if self.consumer is not None:
            self.consumer.close(autocommit=False)


class KafkaPythonDriver(ThreadedDriver):
    name = "kafka_python"
    member_class = KafkaPythonMember

    def skip_reason(self, protocol: str) -> str | None:
        if protocol == "consumer":
            return NO_CONSUMER_PROTOCOL.format(client="kafka-python")
        if protocol == "cooperative" and not KP3:
            return COOPERATIVE_REASON
        return None


DRIVER = KafkaPythonDriver()
