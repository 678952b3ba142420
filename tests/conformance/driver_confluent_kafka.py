"""Conformance driver for confluent-kafka: rebalance_guard.confluent_kafka.Consumer."""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, KafkaError, TopicPartition
from rebalance_guard.confluent_kafka import Consumer, set_rebalance_listener

from tests.conformance.driver import (
    TP,
    Member,
    NotOffered,
    Record,
    SyncScriptListener,
    ThreadedDriver,
    keys,
)
from tests.integration.broker import confluent_group_config


def _tp(key: TP, offset: int | None = None) -> TopicPartition:
    return TopicPartition(*key) if offset is None else TopicPartition(*key, offset)


async def _settled(result: Any) -> Any:
    """The view's result: the sync view answers at once, AIOConsumer's view with a coroutine."""
    return await result if inspect.isawaitable(result) else result


def _offset(value: int) -> int | None:
    return value if value >= 0 else None  # librdkafka's logical offsets (-1001: none)


class ConfluentOps:
    """The Ops of confluent's views: the sync ``Consumer``'s and the ``AIOConsumer``'s."""

    def __init__(self, view: Any) -> None:
        self.raw = view

    async def commit(self) -> None:
        await _settled(self.raw.commit())  # the view's commit is synchronous by default

    async def commit_offsets(self, offsets: dict[TP, int]) -> None:
        await _settled(self.raw.commit(offsets=[_tp(k, v) for k, v in offsets.items()]))

    async def commit_async(self) -> None:
        await _settled(self.raw.commit(asynchronous=True))

    async def committed(self, tp: TP) -> int | None:
        return _offset((await _settled(self.raw.committed([_tp(tp)], timeout=10)))[0].offset)

    async def position(self, tp: TP) -> int | None:
        return _offset((await _settled(self.raw.position([_tp(tp)])))[0].offset)

    async def seek(self, tp: TP, offset: int) -> None:
        await _settled(self.raw.seek(_tp(tp, offset)))

    async def seek_to_beginning(self, tps: Iterable[TP]) -> None:
        for tp in tps:
            await _settled(self.raw.seek(_tp(tp, OFFSET_BEGINNING)))

    async def seek_to_end(self, tps: Iterable[TP]) -> None:
        for tp in tps:
            await _settled(self.raw.seek(_tp(tp, OFFSET_END)))

    async def assignment(self) -> set[TP]:
        return keys(await _settled(self.raw.assignment()))

    async def pause(self, tps: Iterable[TP]) -> None:
        await _settled(self.raw.pause([_tp(tp) for tp in tps]))

    async def resume(self, tps: Iterable[TP]) -> None:
        await _settled(self.raw.resume([_tp(tp) for tp in tps]))

    async def paused(self) -> set[TP]:
        raise NotOffered("confluent-kafka has no paused(): librdkafka does not report pauses")

    async def beginning_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        return {
            tp: (await _settled(self.raw.get_watermark_offsets(_tp(tp), timeout=10)))[0]
            for tp in tps
        }

    async def end_offsets(self, tps: Iterable[TP]) -> dict[TP, int]:
        return {
            tp: (await _settled(self.raw.get_watermark_offsets(_tp(tp), timeout=10)))[1]
            for tp in tps
        }

    async def offsets_for_times(self, times: dict[TP, int]) -> dict[TP, int | None]:
        found = await _settled(
            self.raw.offsets_for_times([_tp(k, v) for k, v in times.items()], timeout=10)
        )
        return {(tp.topic, tp.partition): _offset(tp.offset) for tp in found}

    async def partitions_for_topic(self, topic: str) -> set[int]:
        return set(
            (await _settled(self.raw.list_topics(topic, timeout=10))).topics[topic].partitions
        )

    async def group_metadata(self) -> object:
        return await _settled(self.raw.consumer_group_metadata())


class ConfluentMember(Member):
    """A ``rebalance_guard.confluent_kafka.Consumer``; :meth:`_settle` lets the AIOConsumer
    driver reuse every consumer call here with a coroutine in place of the result."""

    def _config(self) -> dict[str, Any]:
        return {
            "bootstrap.servers": self.bootstrap,
            "group.id": self.group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            **confluent_group_config(self.protocol),
        }

    def _settle(self, result: Any) -> Any:
        return result

    def _open(self) -> None:
        self.consumer = Consumer(self._config())
        listener = SyncScriptListener(self, ConfluentOps)
        set_rebalance_listener(self.consumer, listener)  # type: ignore[arg-type]
        self.consumer.subscribe(self.topics)

    def _poll_once(self) -> list[Record]:
        message = self._settle(self.consumer.poll(0.1))
        if message is None:
            return []
        error = message.error()
        if error is not None:
            if error.code() == KafkaError._PARTITION_EOF:
                return []
            raise RuntimeError(f"poll() delivered an error: {error}")
        key = (message.topic(), message.partition())
        return [Record(key, message.offset(), int(message.value()))]

    def _close(self) -> None:
        if self.consumer is not None:
            self._settle(self.consumer.close())

    def _assignment(self) -> set[TP]:
        return keys(self._settle(self.consumer.assignment()))

    def _paused(self) -> set[TP]:
        raise NotOffered("confluent-kafka has no paused()")

    def _resume(self, tps: set[TP]) -> None:
        self._settle(self.consumer.resume([_tp(tp) for tp in tps]))

    def _subscribe(self, topics: list[str]) -> None:
        self._settle(self.consumer.subscribe(topics))


class ConfluentDriver(ThreadedDriver):
    name = "confluent_kafka"
    member_class = ConfluentMember


DRIVER = ConfluentDriver()
