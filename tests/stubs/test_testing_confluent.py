"""The confluent harness: the runtime adapter's (incremental_)assign, seek and pause handling."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException, TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.confluent_kafka import ConfluentRebalanceView, RebalanceListener
from rebalance_guard.testing.confluent_kafka import ListenerHarness

O0, O1, O2 = ("orders", 0), ("orders", 1), ("orders", 2)


def tps(*keys: tuple[str, int]) -> list[TopicPartition]:
    return [TopicPartition(*key) for key in keys]


class Recorder(RebalanceListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, set[tuple[str, int]], set[tuple[str, int]]]] = []
        self.views: list[object] = []

    def _saw(self, name: str, partitions, consumer) -> None:  # type: ignore[no-untyped-def]
        self.views.append(consumer)
        keys = {(p.topic, p.partition) for p in partitions}
        self.events.append((name, keys, {(p.topic, p.partition) for p in consumer.assignment()}))

    def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self._saw("assigned", partitions, consumer)
        for p in partitions:
            consumer.seek(TopicPartition(p.topic, p.partition, 100 + p.partition))
        consumer.pause(partitions)

    def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
        self._saw("revoked", partitions, consumer)
        consumer.commit()


@pytest.mark.parametrize("protocol", ["eager", "cooperative"])
def test_rebalances_seek_and_pause_through_the_adapters_assign(protocol: str) -> None:
    listener = Recorder()
    harness = ListenerHarness(listener, protocol=protocol)  # type: ignore[arg-type]
    harness.rebalance(tps(O0, O1))
    assert harness.seeks == [(O0, 100), (O1, 101)] and harness.paused == {O0, O1}
    harness.set_positions({O0: 150})
    harness.rebalance(tps(O1, O2))
    calls = harness.consumer.recording.calls
    if protocol == "eager":
        assert "assign" in calls and "unassign" in calls and "incremental_assign" not in calls
        assert listener.events[-2] == ("revoked", {O0, O1}, {O0, O1})
    else:
        assert "incremental_assign" in calls and "assign" not in calls
        assert listener.events[-2] == ("revoked", {O0}, {O0, O1})
    assert harness.commits[0][O0] == 150  # the bare commit has the revoked partition's offset
    assert harness.assignment == {O1, O2}
    assert type(listener.views[0]) is ConfluentRebalanceView
    with pytest.raises(RebalanceViewExpiredError):
        listener.views[0].assignment()  # type: ignore[attr-defined]


def test_bare_commit_with_nothing_new_is_a_no_op_and_lost_commits_fail() -> None:
    class CommitsEverywhere(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            pass

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            assert consumer.commit() == []  # nothing consumed: [] instead of _NO_OFFSET

        def on_partitions_lost(self, partitions, consumer):  # type: ignore[no-untyped-def]
            consumer.commit(offsets=[TopicPartition("orders", 0, 3)])

    harness = ListenerHarness(CommitsEverywhere())
    harness.assign(tps(O0))
    harness.revoke()
    harness.assign(tps(O0))
    with pytest.raises(KafkaException) as raised:
        harness.lose()
    assert raised.value.args[0].code() == KafkaError._ASSIGNMENT_LOST
    assert harness.commits == [] and harness.assignment == set()


def test_async_def_is_refused_as_the_runtime_refuses_it() -> None:
    class Async(RebalanceListener):
        async def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def,override]
            pass

    with pytest.raises(TypeError, match="async"):
        ListenerHarness(Async())


def test_every_permitted_method_works_on_the_recording_consumer() -> None:
    class Everything(RebalanceListener):
        def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
            (committed,) = consumer.committed(tps(O0))
            assert committed.offset == 4
            # nothing consumed since the assignment: librdkafka has no position, the view
            # answers where consumption starts, as Java does (the committed offset here)
            assert [p.offset for p in consumer.position(tps(O0))] == [4]
            assert consumer.get_watermark_offsets(TopicPartition(*O0)) == (0, 9)
            assert [p.offset for p in consumer.offsets_for_times(tps(O0))] == [9]
            assert set(consumer.list_topics().topics["orders"].partitions) == {0}
            assert consumer.memberid() and consumer.consumer_group_metadata() is not None
            consumer.resume(tps(O0))
            assert [(p.topic, p.partition) for p in consumer.assignment()] == [O0]

        def on_partitions_revoked(self, partitions, consumer):  # type: ignore[no-untyped-def]
            consumer.commit(asynchronous=True)

    harness = ListenerHarness(Everything())
    harness.set_committed({O0: 4})
    harness.set_end_offsets({O0: 9})
    harness.assign(tps(O0))
    harness.set_positions({O0: 6})
    harness.revoke()
    assert harness.commits == [{O0: 6}]
    public = {n for n in vars(ConfluentRebalanceView) if not n.startswith("_")}
    assert public - set(harness.consumer.recording.calls) <= {"seek", "pause", "commit"}


class OneCallbackTwoRoles(RebalanceListener):
    """What ``migrate`` makes of ``on_assign=on_rebalance, on_revoke=on_rebalance``."""

    def __init__(self) -> None:
        self.calls: list[tuple[set[tuple[str, int]], set[tuple[str, int]]]] = []

    def on_partitions_assigned(self, partitions, consumer):  # type: ignore[no-untyped-def]
        seen = {(p.topic, p.partition) for p in consumer.assignment()}
        self.calls.append(({(p.topic, p.partition) for p in partitions}, seen))

    on_partitions_revoked = on_partitions_assigned


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        # eager: revoke nothing, assign both, revoke both, assign O1, lose O1
        ("eager", [(set(), set()), ({O0, O1}, {O0, O1}), ({O0, O1}, {O0, O1}), ({O1}, {O1}),
                   ({O1}, set())]),
        # cooperative: assign both, revoke O0 (still listed), assign nothing more, lose O1
        ("cooperative", [({O0, O1}, {O0, O1}), ({O0}, {O0, O1}), (set(), {O1}), ({O1}, set())]),
    ],
)  # fmt: skip
def test_one_method_under_two_names_runs_for_both_roles_and_for_a_loss(
    protocol: str, expected: list[tuple[set[tuple[str, int]], set[tuple[str, int]]]]
) -> None:
    listener = OneCallbackTwoRoles()
    harness = ListenerHarness(listener, protocol=protocol)  # type: ignore[arg-type]
    harness.rebalance(tps(O0, O1))
    harness.rebalance(tps(O1))
    harness.lose()
    assert listener.calls == expected  # the last call: the loss, its partitions already gone
