"""Drive an aiokafka :class:`~rebalance_guard.aiokafka.RebalanceListener` without a broker.

The listener (``def`` or ``async def`` methods) runs through the runtime's own adapter
(``rebalance_guard.aiokafka``) and gets the runtime's
:class:`~rebalance_guard.aiokafka.AIOKafkaRebalanceView` over an in-memory
:class:`RecordingConsumer` with aiokafka's coroutines: the same permitted methods, the same
expiry, ``NotAwaitedError`` for a view coroutine never awaited, and aiokafka's lost signal (a
revocation while the member has no generation) for :meth:`ListenerHarness.lose`, where a
commit raises ``CommitFailedError``. The harness's steps are coroutines::

    harness = ListenerHarness(CommitOnRevoke())
    await harness.assign([tp])
    harness.set_positions({tp: 42})
    await harness.revoke([tp])
    assert harness.committed == {tp: 42}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any

from aiokafka.errors import CommitFailedError, IllegalStateError
from aiokafka.structs import OffsetAndMetadata, OffsetAndTimestamp, TopicPartition
from aiokafka.util import commit_structure_validate

from rebalance_guard.aiokafka import RebalanceListener, _GuardedListener
from rebalance_guard.testing._recording import (
    AsyncDriver,
    Errors,
    Event,
    Fenced,
    JavaStyleConsumer,
    Key,
    Protocol,
    Recording,
)

__all__ = ["ListenerHarness", "RecordingConsumer"]


def _tp(key: Key) -> TopicPartition:
    return TopicPartition(*key)


class RecordingConsumer(JavaStyleConsumer):
    """An in-memory ``AIOKafkaConsumer``: the methods the view forwards to, recorded.

    ``_subscription`` and ``_coordinator`` carry just what the runtime adapter reads: whether
    anything is assigned, and the generation (negative once the member lost its partitions).
    """

    not_assigned = IllegalStateError

    def __init__(self, recording: Recording) -> None:
        super().__init__(recording)
        self._coordinator = SimpleNamespace(generation=1, _pending_exception=None)
        self._subscription = SimpleNamespace(subscription=SimpleNamespace(assignment=None))

    async def commit(self, offsets: Mapping[TopicPartition, Any] | None = None) -> None:
        rec = self._called("commit")
        if offsets is None and not rec.assigned:
            raise IllegalStateError("Not subscribed to any topics or no assignment")
        given = None
        if offsets is not None:  # aiokafka's own validation: int, (int, str) or OffsetAndMetadata
            valid = commit_structure_validate(offsets)
            given = {(p.topic, p.partition): meta.offset for p, meta in valid.items()}
        try:
            rec.commit(given)
        except Fenced as exc:
            raise CommitFailedError(str(exc)) from None

    async def committed(self, partition: TopicPartition) -> int | None:
        return self._called("committed").committed.get((partition.topic, partition.partition))

    async def position(self, partition: TopicPartition) -> int:
        return self._called("position").position(self._assigned(partition))

    async def seek_to_beginning(self, *partitions: TopicPartition) -> bool:
        self._seek_to("seek_to_beginning", "beginning", partitions)
        return True

    async def seek_to_end(self, *partitions: TopicPartition) -> bool:
        self._seek_to("seek_to_end", "end", partitions)
        return True

    def assignment(self) -> frozenset[TopicPartition]:
        return frozenset(_tp(k) for k in self._called("assignment").assigned)

    def paused(self) -> frozenset[TopicPartition]:
        return frozenset(_tp(k) for k in self._called("paused").paused)

    async def beginning_offsets(
        self, partitions: Iterable[TopicPartition]
    ) -> dict[TopicPartition, int]:
        rec = self._called("beginning_offsets")
        return {p: rec.beginning.get((p.topic, p.partition), 0) for p in partitions}

    async def end_offsets(self, partitions: Iterable[TopicPartition]) -> dict[TopicPartition, int]:
        rec = self._called("end_offsets")
        return {p: rec.end.get((p.topic, p.partition), 0) for p in partitions}

    async def offsets_for_times(
        self, timestamps: Mapping[TopicPartition, int]
    ) -> dict[TopicPartition, OffsetAndTimestamp | None]:
        """No timestamps are simulated: every lookup answers ``None`` (no such message)."""
        self._called("offsets_for_times")
        return dict.fromkeys(timestamps)

    async def topics(self) -> set[str]:
        return set(self._called("topics").topics())

    def last_stable_offset(self, partition: TopicPartition) -> int | None:
        return self._called("last_stable_offset").end.get((partition.topic, partition.partition))


class ListenerHarness(AsyncDriver[TopicPartition]):
    """Runs one listener's rebalances the way ``set_rebalance_listener`` runs them.

    ``protocol`` chooses what :meth:`rebalance` calls: ``"eager"`` (revoke everything, assign
    everything) or ``"cooperative"`` (only the delta). A callback's exception (aiokafka logs
    it and hands it to the next ``getmany()``) is raised by the step, after the rebalance.
    """

    def __init__(self, listener: RebalanceListener, *, protocol: Protocol = "eager") -> None:
        self.protocol = protocol
        self.recording = Recording()
        self.consumer = RecordingConsumer(self.recording)
        self.errors = Errors()
        self._adapter = _GuardedListener(self.consumer, listener)

    def to_key(self, partition: TopicPartition) -> Key:
        return (partition.topic, partition.partition)

    def from_key(self, key: Key) -> TopicPartition:
        return _tp(key)

    def _sync_subscription(self) -> None:
        """aiokafka's ``Assignment`` while anything is assigned: the consumed positions."""
        consumed = self.recording.consumed
        self.consumer._subscription.subscription.assignment = (
            SimpleNamespace(
                all_consumed_offsets=lambda: {
                    _tp(k): OffsetAndMetadata(o, "") for k, o in consumed().items()
                }
            )
            if self.recording.assigned
            else None
        )

    async def _step(self, event: Event, keys: list[Key]) -> None:
        partitions = frozenset(_tp(k) for k in keys)
        coordinator = self.consumer._coordinator
        try:
            if event == "on_partitions_assigned":
                self.recording.add(keys)
                self._sync_subscription()
                await self._adapter.on_partitions_assigned(partitions)
            elif event == "on_partitions_revoked":
                try:
                    await self._adapter.on_partitions_revoked(partitions)  # still assigned
                finally:
                    self.recording.remove(keys)
                    self._sync_subscription()
            else:  # aiokafka: a revocation while the member has no generation is a loss
                coordinator.generation, self.recording.fenced = -1, True
                try:  # aiokafka still lists the partitions meanwhile
                    await self._adapter.on_partitions_revoked(partitions)
                finally:
                    coordinator.generation, self.recording.fenced = 1, False
                    self.recording.remove(keys)
                    self._sync_subscription()
        except Exception as exc:  # aiokafka logs it and goes on with the rebalance
            self.errors.keep(exc)
        finally:
            coordinator._pending_exception = None  # the harness raises it instead
