"""Drive a kafka-python :class:`~rebalance_guard.kafka_python.RebalanceListener` without a broker.

The listener runs through the runtime's own dispatch (``rebalance_guard.kafka_python``) and
gets the runtime's :class:`~rebalance_guard.kafka_python.KafkaPythonRebalanceView`, forwarding
to an in-memory :class:`RecordingConsumer` in kafka-python's vocabulary: the same permitted
methods, the same expiry, revoked partitions still assigned during ``on_partitions_revoked``
and gone from the view during ``on_partitions_lost`` (the consumer still lists them, as
kafka-python does; a commit of them raises ``CommitFailedError``), pause
cleared on revoked partitions, and an exception raised after the rebalance completed::

    harness = ListenerHarness(CommitOnRevoke())
    harness.assign([tp])
    harness.set_positions({tp: 42})
    harness.revoke([tp])
    assert harness.committed == {tp: 42}

An :class:`~rebalance_guard.kafka_python.AsyncRebalanceListener` (kafka-python >= 3) is
driven the same way, its ``async def`` callbacks run to their end by each step with the
runtime's :class:`~rebalance_guard.kafka_python.KafkaPythonAsyncRebalanceView`: its
coroutines run inline (there is no IO loop here), an unawaited one is the runtime's
``NotAwaitedError``, and ``to_thread`` calls its function inline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any, cast

from kafka.errors import CommitFailedError, IllegalStateError
from kafka.future import Future
from kafka.structs import OffsetAndMetadata, OffsetAndTimestamp, TopicPartition

from rebalance_guard.kafka_python import _ConsumerState, _Dispatcher
from rebalance_guard.testing._recording import (
    Errors,
    Event,
    Fenced,
    JavaStyleConsumer,
    Key,
    Protocol,
    Recording,
    SyncDriver,
)

__all__ = ["ListenerHarness", "RecordingConsumer"]


def _tp(key: Key) -> TopicPartition:
    return TopicPartition(*key)


def _offset_and_metadata(offset: int) -> OffsetAndMetadata:
    fields = OffsetAndMetadata._fields  # kafka-python 3 added leader_epoch
    return OffsetAndMetadata(offset, "", -1) if len(fields) == 3 else OffsetAndMetadata(offset, "")


class RecordingConsumer(JavaStyleConsumer):
    """An in-memory ``KafkaConsumer``: the methods the view forwards to, recorded.

    Nothing else (no ``poll``): the view in front of it decides what a listener may call.
    """

    _closed = False
    not_assigned = IllegalStateError

    @property
    def _subscription(self) -> Any:
        """kafka-python's ``SubscriptionState`` as far as the view reads it: the consumed
        positions a bare commit commits (which the view books for its callback's record)."""
        consumed = self.recording.consumed
        return SimpleNamespace(
            all_consumed_offsets=lambda: {
                _tp(k): _offset_and_metadata(o) for k, o in consumed().items()
            }
        )

    def commit(self, offsets: Mapping[TopicPartition, OffsetAndMetadata] | None = None) -> None:
        rec = self._called("commit")
        self._commit(rec, offsets)

    def commit_async(
        self,
        offsets: Mapping[TopicPartition, OffsetAndMetadata] | None = None,
        callback: Any = None,
    ) -> Future:
        rec = self._called("commit_async")
        future = Future()
        try:
            done = self._commit(rec, offsets)
        except CommitFailedError as exc:
            future.failure(exc)
        else:
            future.success({_tp(k): _offset_and_metadata(o) for k, o in done.items()})
        if callback is not None:
            future.add_both(lambda result: callback(offsets, result))
        return future

    @staticmethod
    def _commit(
        rec: Recording, offsets: Mapping[TopicPartition, OffsetAndMetadata] | None
    ) -> dict[Key, int]:
        if offsets is not None:  # kafka-python asserts these types too
            for partition, meta in offsets.items():
                if not isinstance(partition, TopicPartition):
                    raise AssertionError(f"commit() keys must be TopicPartition: {partition!r}")
                if not isinstance(meta, OffsetAndMetadata):
                    raise AssertionError(f"commit() values must be OffsetAndMetadata: {meta!r}")
        try:
            return rec.commit(
                None
                if offsets is None
                else {(p.topic, p.partition): m.offset for p, m in offsets.items()}
            )
        except Fenced as exc:
            raise CommitFailedError(str(exc)) from None

    def committed(self, partition: TopicPartition, metadata: bool = False) -> Any:
        offset = self._called("committed").committed.get((partition.topic, partition.partition))
        if metadata:
            return None if offset is None else _offset_and_metadata(offset)
        return offset

    def position(self, partition: TopicPartition, timeout_ms: int | None = None) -> int:
        return self._called("position").position(self._assigned(partition))

    def seek_to_beginning(self, *partitions: TopicPartition) -> None:
        self._seek_to("seek_to_beginning", "beginning", partitions)

    def seek_to_end(self, *partitions: TopicPartition) -> None:
        self._seek_to("seek_to_end", "end", partitions)

    def assignment(self) -> set[TopicPartition]:
        return {_tp(k) for k in self._called("assignment").assigned}

    def paused(self) -> set[TopicPartition]:
        return {_tp(k) for k in self._called("paused").paused}

    def topics(self) -> set[str]:
        return set(self._called("topics").topics())

    def beginning_offsets(
        self, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]:
        rec = self._called("beginning_offsets")
        return {p: rec.beginning.get((p.topic, p.partition), 0) for p in partitions}

    def end_offsets(
        self, partitions: Iterable[TopicPartition], timeout_ms: int | None = None
    ) -> dict[TopicPartition, int]:
        rec = self._called("end_offsets")
        return {p: rec.end.get((p.topic, p.partition), 0) for p in partitions}

    def offsets_for_times(
        self, timestamps: Mapping[TopicPartition, int], timeout_ms: int | None = None
    ) -> dict[TopicPartition, OffsetAndTimestamp | None]:
        """No timestamps are simulated: every lookup answers ``None`` (no such message)."""
        self._called("offsets_for_times")
        return dict.fromkeys(timestamps)

    def group_metadata(self) -> Any:
        self._called("group_metadata")
        return SimpleNamespace(
            group_id="harness", generation_id=1, member_id="harness-member", group_instance_id=None
        )


class ListenerHarness(SyncDriver[TopicPartition]):
    """Runs one listener's rebalances the way ``set_rebalance_listener`` runs them (sync
    steps for async listeners too: each step runs the callback to its end).

    ``protocol`` chooses what :meth:`rebalance` calls: ``"eager"`` (revoke everything, assign
    everything) or ``"cooperative"`` (only the delta). A callback's exception is raised by the
    step that ran it, after the rest of the rebalance completed.
    """

    def __init__(self, listener: object, *, protocol: Protocol = "eager") -> None:
        self.protocol = protocol
        self.recording = Recording()
        self.consumer = RecordingConsumer(self.recording)
        self.errors = Errors()
        # The runtime's dispatch, as set_rebalance_listener builds it; of the consumer state
        # it only calls keep(exc), which Errors provides.
        self._dispatcher = _Dispatcher(
            self.consumer, listener, cast(_ConsumerState, self.errors), protocol=protocol
        )

    def to_key(self, partition: TopicPartition) -> Key:
        return (partition.topic, partition.partition)

    def from_key(self, key: Key) -> TopicPartition:
        return _tp(key)

    def _step(self, event: Event, keys: list[Key]) -> None:
        partitions = {_tp(k) for k in keys}
        if event == "on_partitions_assigned":
            self.recording.add(keys)
            self._dispatcher.dispatch(event, partitions)
        elif event == "on_partitions_revoked":
            self._dispatcher.dispatch(event, partitions)  # still assigned meanwhile
            self.recording.remove(keys)
        else:  # lost: already another member's; kafka-python still lists them meanwhile
            self.recording.fenced = True
            try:
                self._dispatcher.dispatch(event, partitions)
            finally:
                self.recording.fenced = False
                self.recording.remove(keys)
