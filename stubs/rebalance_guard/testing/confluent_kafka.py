"""Drive a confluent-kafka :class:`~rebalance_guard.confluent_kafka.RebalanceListener` without
a broker.

The listener runs through the runtime's own adapter (the ``on_assign``/``on_revoke``/
``on_lost`` callbacks that ``rebalance_guard.confluent_kafka`` gives librdkafka) and gets the
runtime's :class:`~rebalance_guard.confluent_kafka.ConfluentRebalanceView` over an in-memory
:class:`RecordingConsumer` in confluent's vocabulary (lists of ``TopicPartition`` with
offsets): seeks and pauses in ``on_partitions_assigned`` take effect through the adapter's
``assign()``/``incremental_assign()``, as with librdkafka; eager rebalances use
``assign``/``unassign`` and cooperative ones the incremental calls (the other kind is refused
with ``_STATE``, as librdkafka refuses it). A commit of lost partitions raises
``KafkaException(_ASSIGNMENT_LOST)``::

    harness = ListenerHarness(CommitOnRevoke())
    harness.assign([tp])
    harness.set_positions({tp: 42})
    harness.revoke([tp])
    assert harness.committed == {tp: 42}

``TopicPartition`` has no hash in confluent-kafka, so the harness takes partitions either as
``TopicPartition`` or as ``(topic, partition)`` tuples, and its results (``committed``,
``commits``, ``seeks``, ``paused``, ``assignment``) are keyed by tuples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from confluent_kafka import OFFSET_INVALID, KafkaError, KafkaException, TopicPartition

from rebalance_guard.confluent_kafka import RebalanceListener, _Adapter
from rebalance_guard.testing._recording import (
    Errors,
    Event,
    Fenced,
    Key,
    Protocol,
    Recording,
    SyncDriver,
)

__all__ = ["ListenerHarness", "RecordingConsumer"]


def _key(partition: TopicPartition) -> Key:
    return (partition.topic, partition.partition)


def _tp(key: Key, offset: int = OFFSET_INVALID) -> TopicPartition:
    return TopicPartition(key[0], key[1], offset)


def _error(code: int, text: str) -> KafkaException:
    return KafkaException(KafkaError(code, text))


class RecordingConsumer:
    """An in-memory ``confluent_kafka.Consumer``: what the view and the adapter call, recorded."""

    def __init__(self, recording: Recording, protocol: Protocol) -> None:
        self.recording = recording
        self.protocol = protocol

    def _called(self, name: str) -> Recording:
        self.recording.calls.append(name)
        return self.recording

    # -- what the adapter calls around the listener (never offered by the view) --
    def _take(self, partitions: list[TopicPartition]) -> None:
        for partition in partitions:
            if partition.offset >= 0:  # an assignment with an offset: a seek that took effect
                self.recording.seek(_key(partition), partition.offset)
        self.recording.add(_key(p) for p in partitions)

    def _require(self, protocol: Protocol, name: str) -> None:
        if self.protocol != protocol:
            raise _error(KafkaError._STATE, f"{name}() refused under the {self.protocol} protocol")

    def assign(self, partitions: list[TopicPartition]) -> None:
        rec = self._called("assign")
        self._require("eager", "assign")
        rec.remove(list(rec.assigned))
        self._take(partitions)

    def unassign(self) -> None:
        rec = self._called("unassign")
        self._require("eager", "unassign")
        rec.remove(list(rec.assigned))

    def incremental_assign(self, partitions: list[TopicPartition]) -> None:
        self._called("incremental_assign")
        self._require("cooperative", "incremental_assign")
        self._take(partitions)

    def incremental_unassign(self, partitions: list[TopicPartition]) -> None:
        rec = self._called("incremental_unassign")
        self._require("cooperative", "incremental_unassign")
        rec.remove(_key(p) for p in partitions)

    # -- what the view forwards to --
    def commit(
        self,
        message: Any = None,
        offsets: list[TopicPartition] | None = None,
        asynchronous: bool = True,
    ) -> list[TopicPartition] | None:
        rec = self._called("commit_async" if asynchronous else "commit")
        if message is not None:
            given = {(message.topic(), message.partition()): message.offset() + 1}
        elif offsets is not None:
            given = {_key(p): p.offset for p in offsets}
        else:  # the stored offsets: partitions consumed from since the last commit
            given = {
                k: o
                for k, o in rec.positions.items()
                if k in rec.assigned and rec.committed.get(k) != o
            }
            if not given:
                raise _error(KafkaError._NO_OFFSET, "Local: No offset stored")
        try:
            done = rec.commit(given)
        except Fenced as exc:
            raise _error(KafkaError._ASSIGNMENT_LOST, str(exc)) from None
        return None if asynchronous else [_tp(k, o) for k, o in done.items()]

    def committed(
        self, partitions: list[TopicPartition], timeout: float = -1
    ) -> list[TopicPartition]:
        rec = self._called("committed")
        return [_tp(_key(p), rec.committed.get(_key(p), OFFSET_INVALID)) for p in partitions]

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        rec = self._called("position")
        return [_tp(_key(p), rec.positions.get(_key(p), OFFSET_INVALID)) for p in partitions]

    def seek(self, partition: TopicPartition) -> None:
        rec = self._called("seek")
        if _key(partition) not in rec.assigned:
            raise _error(KafkaError._UNKNOWN_PARTITION, f"seek(): {partition} is not assigned")
        rec.seek(_key(partition), partition.offset)

    def assignment(self) -> list[TopicPartition]:
        return [_tp(k) for k in self._called("assignment").assigned]

    def pause(self, partitions: list[TopicPartition]) -> None:
        self._called("pause").paused.update(dict.fromkeys(_key(p) for p in partitions))

    def resume(self, partitions: list[TopicPartition]) -> None:
        rec = self._called("resume")
        for partition in partitions:
            rec.paused.pop(_key(partition), None)

    def get_watermark_offsets(
        self, partition: TopicPartition, timeout: float | None = None, cached: bool = False
    ) -> tuple[int, int]:
        rec = self._called("get_watermark_offsets")
        key = _key(partition)
        return rec.beginning.get(key, 0), rec.end.get(key, 0)

    def offsets_for_times(
        self, partitions: list[TopicPartition], timeout: float | None = None
    ) -> list[TopicPartition]:
        """No timestamps are simulated: every lookup answers the end offset (a future time)."""
        rec = self._called("offsets_for_times")
        return [_tp(_key(p), rec.end.get(_key(p), 0)) for p in partitions]

    def list_topics(self, topic: str | None = None, timeout: float = -1) -> Any:
        from confluent_kafka.admin._metadata import (
            ClusterMetadata,
            PartitionMetadata,
            TopicMetadata,
        )

        metadata = ClusterMetadata()
        for name, numbers in self._called("list_topics").topics().items():
            if topic is not None and name != topic:
                continue
            entry = TopicMetadata()
            entry.topic = name
            for number in sorted(numbers):
                partition = PartitionMetadata()
                partition.id = number
                entry.partitions[number] = partition
            metadata.topics[name] = entry
        return metadata

    def consumer_group_metadata(self) -> object:
        self._called("consumer_group_metadata")
        return object()

    def memberid(self) -> str:
        self._called("memberid")
        return "harness-member"


class ListenerHarness(SyncDriver[TopicPartition | Key]):
    """Runs one listener's rebalances the way ``set_rebalance_listener`` runs them.

    ``protocol``: ``"eager"`` (range, roundrobin) or ``"cooperative"`` (cooperative-sticky,
    KIP-848). A callback's exception (confluent raises it from ``poll()``) is raised by the
    step, after the adapter completed the (un)assignment.
    """

    def __init__(self, listener: RebalanceListener, *, protocol: Protocol = "eager") -> None:
        self.protocol = protocol
        self.recording = Recording()
        self.consumer = RecordingConsumer(self.recording, protocol)
        self.errors = Errors()
        self._adapter = _Adapter(protocol)
        self._adapter.set_listener(listener)

    def to_key(self, partition: TopicPartition | Key) -> Key:
        return partition if isinstance(partition, tuple) else _key(partition)

    def from_key(self, key: Key) -> TopicPartition | Key:
        """Results are keyed by ``(topic, partition)``: confluent's TopicPartition is unhashable."""
        return key

    def _step(self, event: Event, keys: list[Key]) -> None:
        with callback_step(self, event) as callback:
            callback(self.consumer, [_tp(k) for k in keys])


@contextmanager
def callback_step(harness: Any, event: Event) -> Iterator[Callable[..., Any]]:
    """The adapter's callback for ``event`` (confluent's ``on_assign``...), to call in the
    block: a lost callback runs fenced, and an exception is kept for the step to raise (as
    confluent raises it from ``poll()``, after the adapter's (un)assign)."""
    adapter = harness._adapter
    callback = {
        "on_partitions_assigned": adapter.on_assign,
        "on_partitions_revoked": adapter.on_revoke,
        "on_partitions_lost": adapter.on_lost,
    }[event]
    harness.recording.fenced = event == "on_partitions_lost"
    try:
        yield callback
    except Exception as exc:
        harness.errors.keep(exc)
    finally:
        harness.recording.fenced = False
