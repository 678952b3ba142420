"""The kafka-python harness behaves like the runtime: same view, expiry, rebalance sequences."""

from __future__ import annotations

import pytest
from kafka.errors import CommitFailedError
from kafka.structs import OffsetAndMetadata, TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.kafka_python import KafkaPythonRebalanceView, RebalanceListener
from rebalance_guard.testing.kafka_python import ListenerHarness

pytestmark = pytest.mark.kafka_python  # run again under kafka-python 2.x by .ci/run

T0, T1, T2 = (TopicPartition("orders", n) for n in range(3))


def _oam(offset: int) -> OffsetAndMetadata:
    fields = OffsetAndMetadata._fields
    return OffsetAndMetadata(offset, "", -1) if len(fields) == 3 else OffsetAndMetadata(offset, "")


class Recorder(RebalanceListener):
    """Records each callback, what it saw, and keeps its view (to prove it expires)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, set[TopicPartition], set[TopicPartition]]] = []
        self.views: list[object] = []

    def _saw(self, name: str, partitions: set[TopicPartition], consumer: object) -> None:
        self.views.append(consumer)
        self.events.append((name, set(partitions), set(consumer.assignment())))  # type: ignore[attr-defined]

    def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self._saw("assigned", partitions, consumer)

    def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self._saw("revoked", partitions, consumer)

    def on_partitions_lost(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self._saw("lost", partitions, consumer)


def test_the_view_is_the_runtime_view_and_expires() -> None:
    listener = Recorder()
    harness = ListenerHarness(listener)
    harness.assign([T0])
    (view,) = listener.views
    assert type(view) is KafkaPythonRebalanceView
    with pytest.raises(RebalanceViewExpiredError, match="on_partitions_assigned"):
        view.commit()  # type: ignore[attr-defined]


def test_forbidden_methods_are_not_offered() -> None:
    class Polls(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            consumer.poll(0)

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

    harness = ListenerHarness(Polls())
    with pytest.raises(AttributeError, match="KIP-1306"):
        harness.assign([T0])
    assert harness.assignment == {T0}  # the rebalance completed before the error was raised


def test_eager_and_cooperative_rebalances_call_what_the_clients_call() -> None:
    eager, cooperative = Recorder(), Recorder()
    for listener, protocol in ((eager, "eager"), (cooperative, "cooperative")):
        harness = ListenerHarness(listener, protocol=protocol)  # type: ignore[arg-type]
        harness.rebalance([T0, T1])
        harness.rebalance([T1, T2])
    assert eager.events == [
        ("revoked", set(), set()),
        ("assigned", {T0, T1}, {T0, T1}),
        ("revoked", {T0, T1}, {T0, T1}),  # revoked partitions are still assigned meanwhile
        ("assigned", {T1, T2}, {T1, T2}),
    ]
    assert cooperative.events == [
        ("assigned", {T0, T1}, {T0, T1}),
        ("revoked", {T0}, {T0, T1}),
        ("assigned", {T2}, {T1, T2}),
    ]


def test_lost_partitions_are_gone_and_a_commit_fails() -> None:
    class CommitsOnLoss(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            consumer.commit({tp: _oam(5) for tp in partitions})

    listener = Recorder()
    harness = ListenerHarness(listener)
    harness.assign([T0, T1])
    harness.lose([T0])
    assert listener.events[-1] == ("lost", {T0}, {T1})
    committing = ListenerHarness(CommitsOnLoss())  # lost falls back to revoked: KRB104's trap
    committing.assign([T0])
    with pytest.raises(CommitFailedError):
        committing.lose()
    assert committing.commits == [] and committing.assignment == set()


def test_bare_commit_commits_the_revoked_positions_and_explicit_offsets_are_checked() -> None:
    class Explicit(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            consumer.commit({tp: consumer.position(tp) for tp in partitions})  # ints: a bug

    harness = ListenerHarness(Explicit())
    harness.assign([T0])
    with pytest.raises(AssertionError, match="OffsetAndMetadata"):
        harness.revoke()


def test_seek_pause_and_offsets_the_test_sets() -> None:
    class Rewind(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            ends = consumer.end_offsets(list(partitions))
            for tp in partitions:
                committed = consumer.committed(tp)
                consumer.seek(tp, committed if committed is not None else ends[tp])
            consumer.pause(*partitions)

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

    harness = ListenerHarness(Rewind())
    harness.set_committed({T0: 3})
    harness.set_end_offsets({T1: 99})
    harness.assign([T0, T1])
    assert sorted(harness.seeks) == sorted([(T0, 3), (T1, 99)])
    assert harness.paused == {T0, T1} and harness.position(T1) == 99
    harness.revoke([T0])
    assert harness.paused == {T1}  # pause cleared on revoked partitions, as the runtime does


def test_async_listeners_are_refused_as_the_runtime_refuses_them() -> None:
    class Async(RebalanceListener):
        async def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def,override]
            pass

    with pytest.raises(TypeError, match="async"):
        ListenerHarness(Async())


def test_every_permitted_method_works_on_the_recording_consumer() -> None:
    seen: dict[str, object] = {}

    class Everything(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            seen.update(
                assignment=consumer.assignment(),
                position=consumer.position(T0),
                committed=consumer.committed(T0),
                beginning=consumer.beginning_offsets([T0]),
                end=consumer.end_offsets([T0]),
                times=consumer.offsets_for_times({T0: 0}),
                partitions=consumer.partitions_for_topic("orders"),
                topics=consumer.topics(),
                highwater=consumer.highwater(T0),
                paused=consumer.paused(),
                group=consumer.group_metadata().group_id,
            )
            consumer.seek_to_beginning(T0)
            consumer.seek_to_end()
            consumer.pause(T0)
            consumer.resume(T0)
            assert consumer.commit_async().succeeded()

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

    harness = ListenerHarness(Everything())
    harness.set_end_offsets({T0: 8})
    harness.assign([T0])
    assert seen["position"] == 0 and seen["end"] == {T0: 8} and seen["topics"] == {"orders"}
    assert harness.commits == [{T0: 8}]
    public = {n for n in vars(KafkaPythonRebalanceView) if not n.startswith("_")}
    assert public - set(harness.consumer.recording.calls) == {"commit", "seek"}  # tested above
