"""The kafka-python harness drives AsyncRebalanceListeners as the runtime does (issue 25 item 2).

Same view semantics as the sync listener's harness tests (test_testing_kafka_python.py):
expiry, revoked partitions still assigned, lost ones gone, pause cleared on revoke, errors
raised after the rebalance; plus what only async callbacks have: a view coroutine never
awaited is an error, and what needs kafka-python 3's IO loop says so. On kafka-python 2 the
listener is refused, as the runtime refuses it.
"""

from __future__ import annotations

import pytest
from kafka.errors import CommitFailedError
from kafka.future import Future
from kafka.structs import OffsetAndMetadata, TopicPartition
from rebalance_guard import RebalanceViewExpiredError
from rebalance_guard.kafka_python import (
    AsyncRebalanceConsumer,
    AsyncRebalanceListener,
    KafkaPythonAsyncRebalanceView,
    NotAwaitedError,
    to_thread,
)
from rebalance_guard.testing.kafka_python import ListenerHarness

from tests.integration.kafka_python_support import KP3

pytestmark = pytest.mark.kafka_python  # run again under kafka-python 2.x by .ci/run
needs_kp3 = pytest.mark.skipif(not KP3, reason="kafka-python 2 refuses async listeners")

T0, T1, T2 = (TopicPartition("orders", n) for n in range(3))
Partitions = set[TopicPartition]


def _oam(offset: int) -> OffsetAndMetadata:
    return OffsetAndMetadata(offset, "", -1)


class Recorder(AsyncRebalanceListener):
    def __init__(self) -> None:
        self.events: list[tuple[str, Partitions, Partitions]] = []
        self.views: list[AsyncRebalanceConsumer] = []

    def _saw(self, name: str, partitions: Partitions, consumer: AsyncRebalanceConsumer) -> None:
        self.views.append(consumer)
        self.events.append((name, set(partitions), consumer.assignment()))

    async def on_partitions_assigned(
        self, partitions: Partitions, consumer: AsyncRebalanceConsumer
    ) -> None:
        self._saw("assigned", partitions, consumer)

    async def on_partitions_revoked(
        self, partitions: Partitions, consumer: AsyncRebalanceConsumer
    ) -> None:
        self._saw("revoked", partitions, consumer)

    async def on_partitions_lost(
        self, partitions: Partitions, consumer: AsyncRebalanceConsumer
    ) -> None:
        self._saw("lost", partitions, consumer)


class CommitOnRevoke(AsyncRebalanceListener):
    """kafka-python 3 code as users write it, on the view: seek on assign, commit on revoke."""

    def __init__(self, bare: bool, store: dict[TopicPartition, int] | None = None) -> None:
        self.bare = bare
        self.store = store or {}
        self.flushed: list[Partitions] = []

    async def on_partitions_assigned(
        self, partitions: Partitions, consumer: AsyncRebalanceConsumer
    ) -> None:
        for tp in partitions:
            if tp in self.store:
                consumer.seek(tp, self.store[tp])

    async def on_partitions_revoked(
        self, partitions: Partitions, consumer: AsyncRebalanceConsumer
    ) -> None:
        self.flushed.append(await to_thread(set, partitions))  # inline in the harness
        if self.bare:
            await consumer.commit()
        else:
            positions = {tp: await consumer.position(tp) for tp in partitions}
            await consumer.commit_async({tp: _oam(p or 0) for tp, p in positions.items()})


@needs_kp3
def test_the_view_is_the_runtime_async_view_and_expires() -> None:
    listener = Recorder()
    ListenerHarness(listener).assign([T0])
    (view,) = listener.views
    assert type(view) is KafkaPythonAsyncRebalanceView
    with pytest.raises(RebalanceViewExpiredError, match="on_partitions_assigned"):
        view.commit()
    with pytest.raises(RebalanceViewExpiredError, match="on_partitions_assigned"):
        view.seek(T0, 1)


@needs_kp3
@pytest.mark.parametrize("bare", [True, False], ids=["bare", "explicit"])
def test_commit_on_revoke_and_seek_on_assign(bare: bool) -> None:
    harness = ListenerHarness(CommitOnRevoke(bare, store={T0: 7}))
    harness.assign([T0, T1])
    assert harness.seeks == [(T0, 7)]
    harness.set_positions({T0: 42, T1: 9})
    harness.revoke([T0])
    assert harness.committed == ({T0: 42, T1: 9} if bare else {T0: 42})


@needs_kp3
def test_eager_and_cooperative_rebalances_call_what_the_clients_call() -> None:
    eager, cooperative = Recorder(), Recorder()
    for listener, protocol in ((eager, "eager"), (cooperative, "cooperative")):
        harness = ListenerHarness(listener, protocol=protocol)  # type: ignore[arg-type]
        harness.rebalance([T0, T1])
        harness.rebalance([T1, T2])
    assert eager.events == [
        ("revoked", set(), set()),
        ("assigned", {T0, T1}, {T0, T1}),
        ("revoked", {T0, T1}, {T0, T1}),
        ("assigned", {T1, T2}, {T1, T2}),
    ]
    assert cooperative.events == [
        ("assigned", {T0, T1}, {T0, T1}),
        ("revoked", {T0}, {T0, T1}),
        ("assigned", {T2}, {T1, T2}),
    ]


@needs_kp3
def test_lost_defaults_to_revoked_and_its_partitions_are_gone() -> None:
    class Committing(AsyncRebalanceListener):
        async def on_partitions_revoked(
            self, partitions: Partitions, consumer: AsyncRebalanceConsumer
        ) -> None:
            await consumer.commit({tp: _oam(5) for tp in partitions})

    listener = Recorder()
    harness = ListenerHarness(listener)
    harness.assign([T0, T1])
    harness.lose([T0])
    assert listener.events[-1] == ("lost", {T0}, {T1})
    committing = ListenerHarness(Committing())  # lost falls back to revoked: KRB104's trap
    committing.assign([T0])
    with pytest.raises(CommitFailedError):
        committing.lose()
    assert committing.commits == [] and committing.assignment == set()


@needs_kp3
def test_pause_persists_from_assigned_and_is_cleared_on_revoke() -> None:
    class Pausing(AsyncRebalanceListener):
        async def on_partitions_assigned(
            self, partitions: Partitions, consumer: AsyncRebalanceConsumer
        ) -> None:
            consumer.pause(*partitions)

    harness = ListenerHarness(Pausing())
    harness.assign([T0, T1])
    assert harness.paused == {T0, T1}
    harness.revoke([T0])
    assert harness.paused == {T1}


@needs_kp3
def test_an_unawaited_view_coroutine_is_an_error_after_the_rebalance() -> None:
    class Forgets(AsyncRebalanceListener):
        async def on_partitions_revoked(
            self, partitions: Partitions, consumer: AsyncRebalanceConsumer
        ) -> None:
            consumer.commit()  # type: ignore[unused-coroutine]

    harness = ListenerHarness(Forgets())
    harness.assign([T0])
    with pytest.raises(NotAwaitedError, match=r"commit\(\).*never awaited"):
        harness.revoke()
    assert harness.commits == [] and harness.assignment == set()  # never ran; rebalance done


@needs_kp3
def test_what_needs_the_io_loop_says_so() -> None:
    class AwaitsAFuture(AsyncRebalanceListener):
        async def on_partitions_assigned(
            self, partitions: Partitions, consumer: AsyncRebalanceConsumer
        ) -> None:
            await Future()  # never resolved: only kafka-python 3's loop could wait for it

    harness = ListenerHarness(AwaitsAFuture())
    with pytest.raises(RuntimeError, match=r"awaited an unresolved kafka Future.*IO loop"):
        harness.assign([T0])
    assert harness.assignment == {T0}


@needs_kp3
def test_an_error_is_raised_after_the_rebalance_completed() -> None:
    class Fails(AsyncRebalanceListener):
        async def on_partitions_assigned(
            self, partitions: Partitions, consumer: AsyncRebalanceConsumer
        ) -> None:
            raise ValueError("boom")

    harness = ListenerHarness(Fails())
    with pytest.raises(ValueError, match="boom"):
        harness.assign([T0])
    assert harness.assignment == {T0}


def test_def_and_async_def_callbacks_do_not_mix() -> None:
    class Mixed(AsyncRebalanceListener):
        def on_partitions_assigned(  # type: ignore[override]
            self, partitions: Partitions, consumer: AsyncRebalanceConsumer
        ) -> None:
            pass

    expected = r"Mixed.on_partitions_assigned\(\) is not async.*use async def" if KP3 else "3"
    with pytest.raises(TypeError, match=expected):
        ListenerHarness(Mixed())


@pytest.mark.skipif(KP3, reason="kafka-python 3 awaits async listeners")
def test_kafka_python_2_refuses_async_listeners() -> None:
    with pytest.raises(TypeError, match=r"needs kafka-python >= 3.*RebalanceListener"):
        ListenerHarness(Recorder())
